import CarillonProtocol
import Foundation
import NIOCore

/// Stream ids and the frames the signaling core sends.
extension MeetingSignalingCore {
    // MARK: - Frame building

    mutating func allocateStreamId() -> UInt32 {
        defer { nextStreamId &+= 1 }
        return nextStreamId
    }

    func joinedConnections(excluding excluded: SignalingConnectionID? = nil) -> [SignalingConnectionID] {
        connections.filter { $0.value.joined && !$0.value.left && $0.key != excluded }.map(\.key).sorted()
    }

    func broadcast(
        roster entries: [SdkAudioStreamIdInfo],
        now: ClockReading,
        excluding excluded: SignalingConnectionID? = nil
    ) -> [MeetingSignalingOutput] {
        let targets = joinedConnections(excluding: excluded)
        return targets.isEmpty ? [] : [.send(targets, rosterFrame(entries, now: now))]
    }

    func presentEntry(_ participant: Participant) -> SdkAudioStreamIdInfo {
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = participant.streamId
        entry.attendeeID = participant.identity.attendeeId
        entry.externalUserID = participant.identity.externalUserId
        entry.muted = participant.muted
        return entry
    }

    func leaveEntry(_ streamId: UInt32, dropped: Bool) -> SdkAudioStreamIdInfo {
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = streamId
        if dropped { entry.dropped = true }
        return entry
    }

    func rosterFrame(_ entries: [SdkAudioStreamIdInfo], now: ClockReading) -> SdkSignalFrame {
        var info = SdkAudioStreamIdInfoFrame()
        info.streams = entries
        var frame = makeFrame(.audioStreamIDInfo, now: now)
        frame.audioStreamIDInfo = info
        return frame
    }

    func dataFrame(_ payloads: [SdkDataMessagePayload], now: ClockReading) -> SdkSignalFrame {
        var batch = SdkDataMessageFrame()
        batch.messages = payloads
        var frame = makeFrame(.dataMessage, now: now)
        frame.dataMessage = batch
        return frame
    }

    func audioStatus(_ status: UInt32, now: ClockReading) -> SdkSignalFrame {
        var body = SdkAudioStatusFrame()
        body.audioStatus = status
        var frame = makeFrame(.audioStatus, now: now)
        frame.audioStatus = body
        return frame
    }

    func notification(
        _ level: SdkNotificationFrame.NotificationLevel,
        _ message: String,
        now: ClockReading
    ) -> SdkSignalFrame {
        var body = SdkNotificationFrame()
        body.level = level
        body.message = message
        var frame = makeFrame(.notification, now: now)
        frame.notification = body
        return frame
    }

    /// A notification that carries `error.status`, which the client evaluates like a status (4xx ends its session).
    func errorFrame(_ status: UInt32, _ message: String, now: ClockReading) -> SdkSignalFrame {
        var frame = notification(.error, message, now: now)
        frame.error = Self.errorBody(status, message)
        return frame
    }

    static func errorBody(_ status: UInt32, _ message: String) -> SdkErrorFrame {
        var error = SdkErrorFrame()
        error.status = status
        error.description_p = message
        return error
    }

    func notJoinedWarning(
        _ connection: SignalingConnectionID,
        _ state: Connection,
        _ now: ClockReading
    ) -> [MeetingSignalingOutput] {
        [.send([connection], notification(.warning, state.joined ? "frame without its payload ignored"
                                                                 : "send JOIN first", now: now))]
    }

    func makeFrame(_ type: SdkSignalFrame.TypeEnum, now: ClockReading) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = now.unixMilliseconds
        frame.type = type
        return frame
    }
}
