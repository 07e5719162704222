import CarillonProtocol

/// Turns AUDIO_STREAM_ID_INFO frames into de-duplicated presence and mute changes (`signaling.md` §3.13, sans-IO).
///
/// Stream ids are per attendee session; an attendee stays present while any of its stream ids is mapped. The first
/// frame after each JOIN is the complete roster: attendees known before but missing from it have left.
struct RosterTracker: Sendable {
    let selfAttendeeId: String
    private var streams: [UInt32: AttendeeInfo] = [:]
    private var present: [String: AttendeeInfo] = [:]
    private var muted: [String: Bool] = [:]
    private var expectingFullRoster = true
    /// Bumped at each JOIN: what the client knew of the meeting's audio before it may be stale.
    private var generation = 0
    /// Counts arrivals, so a leave and a return between two AUDIO_METADATA frames is still a new presence.
    private var arrivals = 0
    /// The arrival number of each present attendee.
    private var arrival: [String: Int] = [:]

    /// One stretch of an attendee's presence as this client saw it: a new value after the attendee (re)joined and
    /// after each JOIN of this client (a reconnect, possibly to a restarted server).
    struct Presence: Equatable, Sendable {
        let generation: Int
        let arrival: Int
    }

    init(selfAttendeeId: String) { self.selfAttendeeId = selfAttendeeId }

    /// Attendees currently present.
    var attendees: [AttendeeInfo] { present.values.sorted() }

    /// The attendee a stream id belongs to, while mapped.
    func attendee(forStream streamId: UInt32) -> AttendeeInfo? { streams[streamId] }

    /// Whether the roster says the attendee is muted.
    func isMuted(_ attendeeId: String) -> Bool { muted[attendeeId] ?? false }

    /// The current presence of a present attendee: levels known for an older one are stale (``AudioMetadataTracker``
    /// reports them again).
    func presence(of attendeeId: String) -> Presence? {
        arrival[attendeeId].map { Presence(generation: generation, arrival: $0) }
    }

    /// The next frame is a complete roster (called at each JOIN).
    mutating func expectFullRoster() {
        expectingFullRoster = true
        generation += 1
    }

    mutating func apply(_ entries: [SdkAudioStreamIdInfo]) -> RosterChanges {
        var changes = RosterChanges()
        let full = expectingFullRoster
        expectingFullRoster = false
        if full { streams.removeAll() }
        var named: Set<String> = []
        for entry in entries where entry.audioStreamID != 0 {
            if !entry.attendeeID.isEmpty {
                let info = AttendeeInfo(
                    attendeeId: entry.attendeeID,
                    externalUserId: entry.externalUserID.isEmpty ? entry.attendeeID : entry.externalUserID
                )
                named.insert(info.attendeeId)
                // The attendee's mapping moves to the newer stream id.
                for (stream, owner) in streams where owner.attendeeId == info.attendeeId && stream < entry.audioStreamID {
                    streams[stream] = nil
                }
                streams[entry.audioStreamID] = info
                if present[info.attendeeId] == nil {
                    present[info.attendeeId] = info
                    arrivals += 1
                    arrival[info.attendeeId] = arrivals
                    changes.joined.append(info)
                }
                if entry.hasMuted { setMuted(entry.muted, for: info, &changes) }
            } else if entry.hasMuted {
                if let info = streams[entry.audioStreamID] { setMuted(entry.muted, for: info, &changes) }
            } else if let info = streams.removeValue(forKey: entry.audioStreamID) {
                guard !streams.values.contains(info) else { continue }
                remove(info, dropped: entry.dropped, &changes)
            }
        }
        if full {
            for info in present.values.sorted() where !named.contains(info.attendeeId) && info.attendeeId != selfAttendeeId {
                remove(info, dropped: false, &changes)
            }
        }
        return changes
    }

    private mutating func setMuted(_ value: Bool, for info: AttendeeInfo, _ changes: inout RosterChanges) {
        let before = muted[info.attendeeId] ?? false
        muted[info.attendeeId] = value
        guard before != value else { return }
        if value { changes.muted.append(info) } else { changes.unmuted.append(info) }
    }

    private mutating func remove(_ info: AttendeeInfo, dropped: Bool, _ changes: inout RosterChanges) {
        guard present.removeValue(forKey: info.attendeeId) != nil else { return }
        muted[info.attendeeId] = nil
        arrival[info.attendeeId] = nil
        if dropped { changes.dropped.append(info) } else { changes.left.append(info) }
    }
}
