import CarillonProtocol
import Foundation
import NIOCore
import Testing

@testable import Carillon

/// The session core on a virtual clock: join flow, pings, close codes, statuses, reconnect and leave.
@Suite struct SignalingSessionCoreTests {
    let start = SessionTime(monotonic: .uptimeNanoseconds(5_000_000_000), unixMilliseconds: 1_700_000_000_000)
    let credentials = MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "me", joinToken: "token")

    func core(random: Double = 0.5) -> SignalingSessionCore {
        SignalingSessionCore(credentials: credentials, audioSessionId: 4242, random: { random })
    }

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = 1
        frame.type = type
        build(&frame)
        return frame
    }

    func sent(_ actions: [SessionAction]) -> [SdkSignalFrame] {
        actions.compactMap { if case .send(let frame) = $0 { frame } else { nil } }
    }

    func events(_ actions: [SessionAction]) -> [String] {
        actions.compactMap {
            guard case .event(let event) = $0 else { return nil }
            switch event {
            case .startConnecting(let reconnecting): return "connecting(\(reconnecting))"
            case .started(let reconnecting): return "started(\(reconnecting))"
            case .dropped: return "dropped"
            case .cancelledReconnect: return "cancelled"
            case .stopped(let code): return "stopped(\(code))"
            case .roster: return "roster"
            case .dataMessages: return "messages"
            case .volumes: return "volumes"
            case .signalStrengths: return "signals"
            case .remoteVideoSources(let available, let unavailable): return "video(+\(available) -\(unavailable))"
            case .videoStarted(let code): return "videoStarted(\(code))"
            case .cameraSendAvailability(let available): return "camera(\(available))"
            }
        }
    }

    func opens(_ actions: [SessionAction]) -> Bool { actions.contains { if case .openSocket = $0 { true } else { false } } }

    /// Drives a core into the meeting; returns the actions of the step that got it there.
    func joined(_ core: inout SignalingSessionCore, at now: SessionTime? = nil) -> [SessionAction] {
        let now = now ?? start
        _ = core.start(reconnectBudget: .seconds(120), now: now)
        _ = core.socketOpened(now: now)
        _ = core.received(frame(.joinAck) { $0.joinack.defaultServerSideNetworkAdaption = .default }, now: now)
        return mediaStep(&core, at: now)
    }

    /// INDEX, then the media step (offer, SUBSCRIBE, SUBSCRIBE_ACK, connected); returns the last step's actions.
    func mediaStep(_ core: inout SignalingSessionCore, at now: SessionTime) -> [SessionAction] {
        let index = core.received(frame(.index), now: now)
        guard index.contains(where: { if case .prepareMedia = $0 { true } else { false } }) else { return index }
        _ = core.mediaOfferReady("v=0 offer", now: now)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "v=0 answer" }, now: now)
        return core.mediaConnected(now: now)
    }

    func has(_ actions: [SessionAction], _ wanted: String) -> Bool {
        actions.contains {
            switch $0 {
            case .prepareMedia: wanted == "prepare"
            case .connectMedia(let answer, _): wanted == "connect:\(answer)"
            case .stopMedia: wanted == "stop"
            default: false
            }
        }
    }

    @Test func joinFlowSendsPingAndJoinThenStartsOnJoinAckAndIndex() {
        var core = core()
        let begin = core.start(reconnectBudget: .seconds(120), now: start)
        #expect(events(begin) == ["connecting(false)"])
        #expect(opens(begin))
        let opened = sent(core.socketOpened(now: start))
        #expect(opened.map(\.type) == [.pingPong, .join])
        #expect(opened[0].pingPong.pingID == 1)
        let join = opened[1].join
        #expect(join.protocolVersion == 2 && join.flags == 2 && join.audioSessionID == 4242)
        #expect(join.hasWantsCompressedSdp && !join.wantsCompressedSdp)
        #expect(join.clientDetails.clientSource == "carillon")
        #expect(opened.allSatisfy { $0.timestampMs == start.unixMilliseconds })
        // INDEX before JOIN_ACK does not count.
        #expect(core.received(frame(.index), now: start).isEmpty)
        _ = core.received(frame(.joinAck), now: start)
        // INDEX ends the join; the session is in the meeting only once media has connected.
        let index = core.received(frame(.index), now: start)
        #expect(has(index, "prepare") && events(index).isEmpty && !core.isInMeeting)
        let subscribe = sent(core.mediaOfferReady("v=0 offer", now: start))
        #expect(subscribe.map(\.type) == [.subscribe])
        let sub = subscribe[0].sub
        // The camera m-line is always offered (inactive while not sending): one entry, 0.
        #expect(sub.sdpOffer == "v=0 offer" && sub.duplex == .rx && sub.receiveStreamIds == [0])
        #expect(sub.sendStreams.map(\.mediaType) == [.audio] && sub.sendStreams[0].attendeeID == "self-id")
        #expect(sub.sendStreams[0].trackLabel == "AmazonChimeExpressAudio" && sub.sendStreams[0].streamID == 1)
        #expect(sub.hasAudioMuted && !sub.audioMuted)
        // A second offer for the same step is not sent again.
        #expect(core.mediaOfferReady("v=0 again", now: start).isEmpty)
        let ack = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "v=0 answer" }, now: start)
        #expect(has(ack, "connect:v=0 answer"))
        #expect(events(core.mediaConnected(now: start)) == ["started(false)", "videoStarted(ok)"])
        #expect(core.isInMeeting)
    }

    @Test func mediaThatFailsOrNeverConnectsIsRetried() {
        var failing = core(random: 0)
        _ = failing.start(reconnectBudget: .seconds(120), now: start)
        _ = failing.socketOpened(now: start)
        _ = failing.received(frame(.joinAck), now: start)
        _ = failing.received(frame(.index), now: start)
        _ = failing.mediaOfferReady("v=0 offer", now: start)
        _ = failing.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "v=0 answer" }, now: start)
        let failed = failing.mediaFailed(now: start)
        #expect(has(failed, "stop") && events(failed).isEmpty)
        #expect(opens(failing.tick(now: start.advanced(by: .seconds(1)))))
        // No SUBSCRIBE_ACK within the 15 s step: retry.
        var silent = core(random: 0)
        _ = silent.start(reconnectBudget: .seconds(120), now: start)
        _ = silent.socketOpened(now: start)
        _ = silent.received(frame(.joinAck), now: start)
        _ = silent.received(frame(.index), now: start)
        _ = silent.mediaOfferReady("v=0 offer", now: start)
        #expect(silent.tick(now: start.advanced(by: .seconds(14))).isEmpty == false || !silent.isInMeeting)
        let timedOut = silent.tick(now: start.advanced(by: .seconds(15)))
        #expect(has(timedOut, "stop") && timedOut.contains { if case .closeSocket = $0 { true } else { false } })
        // An empty answer is a failed step too.
        var empty = core(random: 0)
        _ = empty.start(reconnectBudget: .seconds(120), now: start)
        _ = empty.socketOpened(now: start)
        _ = empty.received(frame(.joinAck), now: start)
        _ = empty.received(frame(.index), now: start)
        _ = empty.mediaOfferReady("v=0 offer", now: start)
        #expect(has(empty.received(frame(.subscribeAck), now: start), "stop"))
        // Media lost in the meeting: dropped, reconnecting, media torn down.
        var lost = core(random: 0)
        _ = joined(&lost)
        let drop = lost.mediaFailed(now: start)
        #expect(events(drop) == ["dropped", "connecting(true)"] && has(drop, "stop"))
    }

    @Test(arguments: [
        (UInt16(4410), MeetingSessionStatusCode.audioCallEnded),
        (4401, .audioAuthenticationRejected),
        (4403, .audioAuthenticationRejected),
        (4409, .audioCallAtCapacity),
        (1000, .audioDisconnected),
    ])
    func terminalCloseCodesWhileJoining(code: UInt16, status: MeetingSessionStatusCode) {
        var core = core()
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        #expect(events(core.socketClosed(code: code, now: start)) == ["stopped(\(status))"])
        #expect(core.phase == .stopped)
    }

    @Test func aFailedTLSHandshakeStopsTheJoinAtOnceAndAReconnectToo() {
        var joining = core()
        _ = joining.start(reconnectBudget: .seconds(120), now: start)
        let refused = joining.socketFailedTLS(now: start)
        #expect(events(refused) == ["stopped(audioServiceUnavailable)"])
        #expect(joining.phase == .stopped && joining.nextDeadline == nil)
        var reconnecting = core(random: 0)
        _ = joined(&reconnecting)
        _ = reconnecting.socketClosed(code: nil, now: start)
        #expect(opens(reconnecting.tick(now: start)))
        #expect(events(reconnecting.socketFailedTLS(now: start)) == ["cancelled", "stopped(audioServiceUnavailable)"])
    }

    @Test func transientFailuresWhileJoiningAreRetriedAfterBackoff() {
        var core = core(random: 0.5)
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        let failed = core.socketClosed(code: 4500, now: start)
        #expect(events(failed).isEmpty)
        #expect(core.nextDeadline == start.monotonic + .milliseconds(500))
        #expect(!opens(core.tick(now: start.advanced(by: .milliseconds(499)))))
        #expect(opens(core.tick(now: start.advanced(by: .milliseconds(500)))))
        // Connection refused (no close code at all) is retried too.
        _ = core.socketClosed(code: nil, now: start.advanced(by: .milliseconds(600)))
        #expect(core.nextDeadline == start.advanced(by: .milliseconds(600)).monotonic + .milliseconds(1000))
    }

    @Test func dropInTheMeetingReconnectsAndReportsIt() {
        var core = core(random: 0)
        _ = joined(&core)
        let dropped = core.socketClosed(code: nil, now: start.advanced(by: .seconds(30)))
        #expect(events(dropped) == ["dropped", "connecting(true)"])
        let later = start.advanced(by: .seconds(30))
        #expect(opens(core.tick(now: later)))
        let rejoin = sent(core.socketOpened(now: later))
        #expect(rejoin.last?.join.audioSessionID == 4242)
        _ = core.received(frame(.joinAck), now: later)
        #expect(events(mediaStep(&core, at: later)) == ["started(true)"])
    }

    @Test func muteSurvivesAReconnect() {
        var core = core(random: 0)
        _ = joined(&core)
        let (accepted, actions) = core.setMuted(true, now: start)
        #expect(accepted)
        #expect(sent(actions).first?.audioControl.muted == true)
        _ = core.socketClosed(code: 4503, now: start)
        _ = core.tick(now: start)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck), now: start)
        let back = mediaStep(&core, at: start)
        #expect(sent(back).first?.type == .audioControl)
        #expect(sent(back).first?.audioControl.muted == true)
    }

    @Test func muteRightAfterStartRidesOnSubscribeAndTheFirstAudioControl() {
        var core = core(random: 0)
        #expect(core.setMuted(true, now: start).accepted == false)
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        let (accepted, actions) = core.setMuted(true, now: start)
        #expect(accepted && actions.isEmpty)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck), now: start)
        _ = core.received(frame(.index), now: start)
        let subscribe = sent(core.mediaOfferReady("v=0 offer", now: start))
        #expect(subscribe.first?.sub.audioMuted == true)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "v=0 answer" }, now: start)
        let connected = core.mediaConnected(now: start)
        #expect(sent(connected).first?.type == .audioControl && sent(connected).first?.audioControl.muted == true)
        #expect(core.isMuted)
    }

    @Test func spentBudgetCancelsTheReconnect() {
        var core = core(random: 0.99)
        _ = joined(&core)
        _ = core.socketClosed(code: nil, now: start)
        var now = start
        var outcome: [String] = []
        for _ in 0..<100 where outcome.isEmpty {
            now = now.advanced(by: .seconds(5))
            _ = core.tick(now: now)
            outcome = events(core.socketClosed(code: nil, now: now))
        }
        #expect(outcome == ["cancelled", "stopped(audioDisconnected)"])
        #expect(now.monotonic - start.monotonic >= .seconds(120))
        #expect(now.monotonic - start.monotonic < .seconds(130))
    }

    @Test(arguments: [
        (UInt32(301), "stopped(audioJoinedFromAnotherDevice)"),
        (403, "stopped(audioAuthenticationRejected)"),
        (409, "stopped(audioCallAtCapacity)"),
        (410, "stopped(audioServerHungup)"),
        (411, "stopped(audioAuthenticationRejected)"),
        (599, "stopped(audioDisconnected)"),
        (500, "dropped,connecting(true)"),
        (503, "dropped,connecting(true)"),
        (200, ""),
    ])
    func audioStatusOutcomes(status: UInt32, expected: String) {
        var core = core()
        _ = joined(&core)
        let actions = core.received(frame(.audioStatus) { $0.audioStatus.audioStatus = status }, now: start)
        #expect(events(actions).joined(separator: ",") == expected)
    }

    @Test func errorStatusOnAnyFrameIsEvaluated() {
        var core = core()
        _ = joined(&core)
        let actions = core.received(frame(.notification) { $0.error.status = 403 }, now: start)
        #expect(events(actions) == ["stopped(audioAuthenticationRejected)"])
        var other = self.core()
        _ = joined(&other)
        #expect(events(other.received(frame(.notification) { $0.error.status = 502 }, now: start)) == ["dropped", "connecting(true)"])
    }

    @Test func fourMissedPongsAfterTheGraceReconnect() {
        var core = core()
        _ = joined(&core)
        var now = start
        var outcome: [String] = []
        var pings = 0
        for _ in 0..<6 where outcome.isEmpty {
            now = now.advanced(by: .seconds(10))
            let actions = core.tick(now: now)
            pings += sent(actions).filter { $0.type == .pingPong }.count
            outcome = events(actions)
        }
        #expect(pings == 3)
        #expect(outcome == ["dropped", "connecting(true)"])
    }

    @Test func answeredPingsKeepTheSessionAndServerPingsGetPongs() {
        var core = core()
        _ = joined(&core)
        var now = start
        for _ in 0..<10 {
            now = now.advanced(by: .seconds(10))
            let ping = sent(core.tick(now: now)).first { $0.type == .pingPong }
            #expect(ping != nil)
            _ = core.received(frame(.pingPong) { $0.pingPong.type = .pong; $0.pingPong.pingID = ping?.pingPong.pingID ?? 0 }, now: now)
        }
        #expect(core.isInMeeting)
        let pong = sent(core.received(frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 77 }, now: now))
        #expect(pong.first?.pingPong.type == .pong && pong.first?.pingPong.pingID == 77)
    }

    @Test func leaveWaitsForLeaveAckOrTimesOut() {
        var core = core()
        _ = joined(&core)
        let leave = core.stop(now: start)
        #expect(sent(leave).map(\.type) == [.leave] && has(leave, "stop"))
        #expect(events(core.received(frame(.leaveAck), now: start)) == ["stopped(ok)"])
        var silent = self.core()
        _ = joined(&silent)
        _ = silent.stop(now: start)
        #expect(events(silent.tick(now: start.advanced(by: .seconds(14)))).isEmpty)
        #expect(events(silent.tick(now: start.advanced(by: .seconds(15)))) == ["stopped(ok)"])
        // The socket closing during the leave counts as done.
        var closing = self.core()
        _ = joined(&closing)
        _ = closing.stop(now: start)
        #expect(events(closing.socketClosed(code: 1000, now: start)) == ["stopped(ok)"])
    }

    @Test func dataMessagesNeedTheMeetingAndBecomeDataMessageValues() {
        var core = core()
        #expect(core.dataMessage(topic: "t", data: [1], lifetimeMs: 0, now: start) == nil)
        _ = joined(&core)
        let frame = sent(core.dataMessage(topic: "t", data: [1, 2], lifetimeMs: 500, now: start) ?? []).first
        #expect(frame?.dataMessage.messages.first?.lifetimeMs == 500)
        let incoming = core.received(self.frame(.dataMessage) {
            var delivered = SdkDataMessagePayload()
            delivered.topic = "t"
            delivered.data = Data([9])
            delivered.senderAttendeeID = "a"
            delivered.ingestTimeNs = 1_700_000_000_123_000_000
            var bounced = delivered
            bounced.clearIngestTimeNs()
            $0.dataMessage.messages = [delivered, bounced]
        }, now: start)
        guard case .event(.dataMessages(let messages)) = incoming.first else {
            Issue.record("expected data messages")
            return
        }
        #expect(messages.map(\.timestampMs) == [1_700_000_000_123, 0])
        #expect(messages.map(\.throttled) == [false, true])
    }

    @Test func clientMetricsAreSentOnlyInTheMeeting() {
        var session = core()
        let metrics = AudioClientMetrics(micPacketsPerSecond: 50, speakerPacketsPerSecond: 50, jitterBufferMilliseconds: 40).frame
        #expect(session.clientMetric(metrics, now: start).isEmpty)
        _ = joined(&session)
        let sent = session.clientMetric(metrics, now: start)
        guard case .send(let frame)? = sent.first, sent.count == 1 else {
            Issue.record("expected one frame, got \(sent)")
            return
        }
        #expect(frame.type == .clientMetric && frame.clientMetric == metrics)
    }
}
