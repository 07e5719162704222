import CarillonProtocol
import Foundation
import NIOCore

/// Mute, who may hear and send audio, volumes and signal strengths (AUDIO_METADATA), and the live attendees.
extension MeetingSignalingCore {
    // MARK: - Mute and data messages

    mutating func setMuted(_ attendeeId: String, _ muted: Bool, now: ClockReading) -> [MeetingSignalingOutput] {
        // An attendee whose capabilities do not let it send audio stays muted: the mixer never mixes it.
        let muted = muted || !sendsAudio(attendeeId)
        guard var participant = participants[attendeeId], participant.muted != muted else { return [] }
        participant.muted = muted
        participants[attendeeId] = participant
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = participant.streamId
        entry.muted = muted
        return broadcast(roster: [entry], now: now) + [.audioMuted(attendeeId: attendeeId, muted: muted)]
    }


    // MARK: - Audio metadata

    /// The audio stream id of an attendee's current session in the roster.
    public func streamId(of attendeeId: String) -> UInt32? { participants[attendeeId]?.streamId }

    /// Whether the attendee's live session may send audio (true while it has none).
    func sendsAudio(_ attendeeId: String) -> Bool {
        guard let connection = participants[attendeeId]?.connection else { return true }
        return connections[connection]?.permissions.sendsAudio ?? true
    }

    /// Whether an attendee's live session may hear the meeting (true while it has none).
    public func hearsMeeting(_ attendeeId: String) -> Bool {
        guard let connection = participants[attendeeId]?.connection else { return true }
        return connections[connection]?.permissions.receivesAudio ?? true
    }

    /// Every attendee that has joined this room, present or gone, content-share sessions folded into their owner's
    /// ``LiveAttendeeState/content``; sorted by attendee id. Cost: linear in the attendees and publications.
    public func liveAttendees() -> [LiveAttendeeState] {
        let publishing = Set(publications.values.map(\.identity.attendeeId))
        var states: [LiveAttendeeState] = []
        for participant in participants.values where !Self.isContent(participant.identity.attendeeId) {
            let id = participant.identity.attendeeId
            let reconnecting = participant.connection == nil
            states.append(LiveAttendeeState(
                attendeeId: id, externalUserId: participant.identity.externalUserId,
                presence: reconnecting ? .reconnecting : .joined,
                sinceUnixNanoseconds: reconnecting ? participant.disconnectedAt ?? participant.joinedAt : participant.joinedAt,
                muted: participant.muted, video: publishing.contains(id),
                content: participants[id + JoinToken.contentSuffix] != nil))
        }
        for (id, departure) in departures where !Self.isContent(id) && participants[id] == nil {
            states.append(LiveAttendeeState(
                attendeeId: id, externalUserId: departure.identity.externalUserId, presence: departure.presence,
                sinceUnixNanoseconds: departure.at, muted: false, video: false, content: false))
        }
        return states.sorted { $0.attendeeId < $1.attendeeId }
    }

    /// Whether an attendee is muted (false for unknown attendees).
    public func isMuted(_ attendeeId: String) -> Bool { participants[attendeeId]?.muted ?? false }

    /// One AUDIO_METADATA frame to every joined socket with the volume (dB below full scale, 0 loudest) and the
    /// uplink signal strength (0 no audio, 1 lossy, 2 good) of the attendees given; attendees not in the roster are
    /// left out. The client sets every attendee missing from a frame with volumes to silent, so pass all audible
    /// ones.
    public func audioMetadata(
        _ states: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)],
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        let entries: [SdkAudioAttendeeState] = states.compactMap { state in
            guard let participant = participants[state.attendeeId] else { return nil }
            var entry = SdkAudioAttendeeState()
            entry.audioStreamID = participant.streamId
            if let volume = state.volume { entry.volume = volume }
            if let signal = state.signalStrength { entry.signalStrength = signal }
            return entry
        }
        let targets = joinedConnections(excluding: nil)
        guard !entries.isEmpty, !targets.isEmpty else { return [] }
        var frame = makeFrame(.audioMetadata, now: now)
        frame.audioMetadata.attendeeStates = entries
        return [.send(targets, frame)]
    }
}
