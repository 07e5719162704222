import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// Data messages: validation, the per-sender and per-meeting throttles, ingest times, the buffer.
extension MeetingSignalingCore {
    mutating func dataMessages(
        _ payloads: [SdkDataMessagePayload],
        from connection: SignalingConnectionID,
        sender: AttendeeIdentity,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard payloads.count <= configuration.maximumDataMessagesPerFrame else {
            return [.send([connection], notification(.warning, "data message frame rejected: \(payloads.count) messages, "
                + "at most \(configuration.maximumDataMessagesPerFrame) in one frame", now: now))]
        }
        // The hard limits first: a session past them is cut off before anything of the frame is relayed.
        var sessionLimit = connections[connection]?.dataMessageLimit
            ?? TokenBucket(capacity: configuration.attendeeHardBurst, refillPerSecond: configuration.attendeeHardRate)
        for _ in payloads {
            guard sessionLimit.take(now: now.monotonic), dataMessageLimit.take(now: now.monotonic) else {
                connections[connection]?.dataMessageLimit = sessionLimit
                return [.close(connection, code: SignalingCloseCode.tooManyRequests)]
            }
        }
        connections[connection]?.dataMessageLimit = sessionLimit
        var outputs: [MeetingSignalingOutput] = []
        var delivered: [SdkDataMessagePayload] = []
        var throttled: [SdkDataMessagePayload] = []
        var rejected: [String] = []
        var share = connections[connection]?.throttleShare
            ?? TokenBucket(capacity: configuration.throttleBurst / 2, refillPerSecond: configuration.throttleRate / 2)
        defer { connections[connection]?.throttleShare = share }
        for payload in payloads {
            if let problem = problem(with: payload) {
                rejected.append(problem)
                continue
            }
            var stamped = payload
            stamped.senderAttendeeID = sender.attendeeId
            stamped.senderExternalUserID = sender.externalUserId
            guard admitsUnderThrottle(&share, now: now.monotonic) else {
                stamped.clearIngestTimeNs()
                throttled.append(stamped)
                continue
            }
            // Ingest times are strictly increasing even if the wall clock steps back.
            lastIngestNanoseconds = max(lastIngestNanoseconds + 1, now.unixNanoseconds)
            stamped.ingestTimeNs = lastIngestNanoseconds
            if stamped.lifetimeMs > 0 {
                buffer.store(stamped, lifetime: .milliseconds(Int64(stamped.lifetimeMs)), now: now.monotonic)
            }
            delivered.append(stamped)
        }
        if !delivered.isEmpty {
            let others = joinedConnections(excluding: connection)
            if !others.isEmpty { outputs.append(.send(others, dataFrame(delivered, now: now))) }
            outputs.append(.dataMessagesDelivered(delivered))
        }
        if !throttled.isEmpty { outputs.append(.send([connection], dataFrame(throttled, now: now))) }
        if let first = rejected.first {
            // One warning per frame, however many of its messages were bad.
            let more = rejected.count > 1 ? " (and \(rejected.count - 1) more)" : ""
            outputs.append(.send([connection], notification(.warning, "data message rejected: \(first)\(more)", now: now)))
        }
        return outputs
    }

    /// Whether a message passes the meeting's soft throttle: from the session's `share` while it has tokens, beyond it
    /// only while the meeting's bucket holds more than its reserve (a quarter of the burst) for the other senders.
    mutating func admitsUnderThrottle(_ share: inout TokenBucket, now: NIODeadline) -> Bool {
        let ownToken = share.available(now: now) >= 1
        guard ownToken || throttle.available(now: now) >= configuration.throttleBurst / 4 + 1 else { return false }
        guard throttle.take(now: now) else { return false }
        if ownToken { _ = share.take(now: now) }
        return true
    }

    func problem(with payload: SdkDataMessagePayload) -> String? {
        if !DataMessageTopic.isValid(payload.topic) {
            return "topic \"\(payload.topic.prefix(64))\" must match ^[a-zA-Z0-9_-]{1,36}$"
        }
        if payload.data.count > configuration.maximumPayloadBytes {
            return "payload of \(payload.data.count) bytes exceeds \(configuration.maximumPayloadBytes) bytes"
        }
        return nil
    }
}
