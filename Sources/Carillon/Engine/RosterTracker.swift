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

    init(selfAttendeeId: String) { self.selfAttendeeId = selfAttendeeId }

    /// Attendees currently present.
    var attendees: [AttendeeInfo] { present.values.sorted() }

    /// The attendee a stream id belongs to, while mapped.
    func attendee(forStream streamId: UInt32) -> AttendeeInfo? { streams[streamId] }

    /// Whether the roster says the attendee is muted.
    func isMuted(_ attendeeId: String) -> Bool { muted[attendeeId] ?? false }

    /// The next frame is a complete roster (called at each JOIN).
    mutating func expectFullRoster() { expectingFullRoster = true }

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
        if dropped { changes.dropped.append(info) } else { changes.left.append(info) }
    }
}
