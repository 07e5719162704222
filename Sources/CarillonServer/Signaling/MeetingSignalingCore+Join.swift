import CarillonProtocol
import Foundation
import NIOCore

/// JOIN and LEAVE: the roster, reconnects and takeovers, content-share capacity, the replay of buffered messages.
extension MeetingSignalingCore {
    // MARK: - JOIN and LEAVE

    mutating func join(
        _ connection: SignalingConnectionID,
        frame: SdkSignalFrame,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard var state = connections[connection], !state.joined else { return [] }
        if Self.isContent(state.identity.attendeeId) {
            let shares = participants.keys.filter { Self.isContent($0) && $0 != state.identity.attendeeId }
            if shares.count >= configuration.maximumContentShares {
                connections[connection] = nil
                return [.send([connection], audioStatus(409, now: now)),
                        .close(connection, code: SignalingCloseCode.atCapacity)]
            }
        }
        state.joined = true
        state.periodicKeyFramesDisabled = frame.hasJoin && frame.join.disablePeriodicKeyframeRequestOnContentSender
        // The mode the client asks for is echoed (every mode is supported): 4 lets this server choose what it receives.
        state.adaptation = frame.hasJoin && frame.join.hasServerSideNetworkAdaption ? frame.join.serverSideNetworkAdaption : .default
        if !configuration.serverSideAdaptation, state.adaptation == .bandwidthProbingAndVideoQualityAdaption {
            state.adaptation = .none
        }
        connections[connection] = state
        let identity = state.identity
        let audioSessionId = frame.hasJoin ? frame.join.audioSessionID : 0
        var outputs: [MeetingSignalingOutput] = []
        var retiredStreamId: UInt32?
        var muted = false

        if let previous = participants[identity.attendeeId] {
            // A reconnect (same audio session) or a second device (another one) replaces the old socket.
            retiredStreamId = previous.streamId
            muted = previous.muted
            if let old = previous.connection, old != connection {
                if previous.audioSessionId != audioSessionId {
                    outputs.append(.send([old], audioStatus(301, now: now)))
                }
                connections[old] = nil
                outputs.append(.close(old, code: SignalingCloseCode.replaced))
                outputs += endPublication(of: old, now: now)
            }
        }
        // An attendee whose capabilities do not let it send audio joins muted and stays so.
        let forcedMute = !muted && !state.permissions.sendsAudio && !Self.isContent(identity.attendeeId)
        if forcedMute { muted = true }
        let newcomer = participants[identity.attendeeId] == nil
        if newcomer { outputs.append(.activity(identity, .joined)) }
        departures[identity.attendeeId] = nil
        let participant = Participant(
            identity: identity,
            streamId: allocateStreamId(),
            muted: muted,
            audioSessionId: audioSessionId,
            connection: connection,
            dropDeadline: nil,
            joinedAt: participants[identity.attendeeId]?.joinedAt ?? now.unixNanoseconds
        )
        participants[identity.attendeeId] = participant
        if forcedMute { outputs.append(.audioMuted(attendeeId: identity.attendeeId, muted: true)) }

        var joinAck = SdkJoinAckFrame()
        joinAck.videoSubscriptionLimit = 25
        joinAck.wantsCompressedSdp = false
        joinAck.defaultServerSideNetworkAdaption = state.adaptation
        var ack = makeFrame(.joinAck, now: now)
        ack.joinack = joinAck
        outputs.append(.send([connection], ack))

        outputs.append(.send([connection], indexFrame(for: connection, attendeeId: identity.attendeeId, now: now)))

        // The joiner gets the complete roster; everybody else only the news.
        let roster = participants.values.sorted { $0.streamId < $1.streamId }.map(presentEntry)
        outputs.append(.send([connection], rosterFrame(roster, now: now)))
        var news = [presentEntry(participant)]
        if let retiredStreamId { news.append(leaveEntry(retiredStreamId, dropped: false)) }
        outputs += broadcast(roster: news, now: now, excluding: connection)
        // `num_participants` changed: the others' uplink policies (Chime's simulcast table) read it from INDEX.
        if newcomer { outputs += indexUpdate(now: now, excluding: connection) }

        // The replay in frames of at most ``replayMessagesPerFrame``: 1024 messages of 2 KiB in one frame would be 2 MiB,
        // over the clients' 1 MiB frame limit.
        let replay = buffer.liveMessages(now: now.monotonic)
        for start in stride(from: 0, to: replay.count, by: Self.replayMessagesPerFrame) {
            let chunk = Array(replay[start..<min(start + Self.replayMessagesPerFrame, replay.count)])
            outputs.append(.send([connection], dataFrame(chunk, now: now)))
        }
        return outputs
    }

    mutating func leave(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingSignalingOutput] {
        guard var state = connections[connection] else { return [] }
        var outputs: [MeetingSignalingOutput] = []
        var departed = false
        if state.joined, !state.left, let participant = participants[state.identity.attendeeId],
           participant.connection == connection {
            participants[state.identity.attendeeId] = nil
            departed = true
            outputs += broadcast(roster: [leaveEntry(participant.streamId, dropped: false)], now: now,
                                 excluding: connection)
            outputs.append(.activity(participant.identity, .left))
            departures[participant.identity.attendeeId] = (participant.identity, .left, now.unixNanoseconds)
        }
        state.left = true
        connections[connection] = state
        // One INDEX tells the others of the ended publication and the new `num_participants` together.
        let published = publications[connection] != nil
        outputs += endPublication(of: connection, now: now)
        if departed, !published { outputs += indexUpdate(now: now, excluding: connection) }
        var ack = makeFrame(.leaveAck, now: now)
        ack.leaveAck = SdkLeaveAckFrame()
        outputs.append(.send([connection], ack))
        outputs.append(.endMedia(connection))
        return outputs
    }
}
