import CarillonProtocol
import NIOCore
import Testing

@testable import Carillon

/// The video side of the client's signaling core: INDEX to sources, renegotiation with receive slots and the
/// camera, SUBSCRIBE_ACK tracks and allocations, the sender limit, PAUSE/RESUME.
@Suite struct SignalingSessionVideoTests {
    let start = SessionTime(monotonic: .uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.type = type
        build(&frame)
        return frame
    }

    func source(_ attendee: String, stream: UInt32, group: UInt32, kbps: UInt32 = 600) -> SdkStreamDescriptor {
        var descriptor = SdkStreamDescriptor()
        descriptor.attendeeID = attendee
        descriptor.streamID = stream
        descriptor.groupID = group
        descriptor.maxBitrateKbps = kbps
        descriptor.mediaType = .video
        return descriptor
    }

    func index(_ sources: [SdkStreamDescriptor], atCapacity: Bool = false) -> SdkSignalFrame {
        frame(.index) {
            $0.index.sources = sources
            $0.index.atCapacity = atCapacity
        }
    }

    /// A core in the meeting whose first INDEX had `sources`.
    func joined(sources: [SdkStreamDescriptor] = []) -> SignalingSessionCore {
        var core = SignalingSessionCore(
            credentials: MeetingSessionCredentials(attendeeId: "self-id", externalUserId: "self", joinToken: "t"),
            audioSessionId: 1, random: { 0.5 })
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck), now: start)
        _ = core.received(index(sources), now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        _ = core.mediaConnected(now: start)
        return core
    }

    func plans(_ actions: [SessionAction]) -> [SessionMediaPlan] {
        actions.compactMap { if case .renegotiateMedia(let plan) = $0 { plan } else { nil } }
    }

    func subscribes(_ actions: [SessionAction]) -> [SdkSubscribeFrame] {
        actions.compactMap { if case .send(let frame) = $0, frame.type == .subscribe { frame.sub } else { nil } }
    }

    @Test func indexReportsAttendeesWithVideoButNeverItsOwn() {
        var core = joined()
        let first = core.received(index([source("a", stream: 3, group: 1), source("self-id", stream: 4, group: 2),
                                         source("self-id#content", stream: 5, group: 3), source("b", stream: 6, group: 4)]),
                                  now: start)
        let events = first.compactMap { if case .event(.remoteVideoSources(let on, let off)) = $0 { (on, off) } else { nil } }
        #expect(events.count == 1 && events[0].0 == ["a", "b"] && events[0].1.isEmpty)
        #expect(core.videoSources.map(\.streamID) == [3, 6])
        // Not receiving yet: no renegotiation.
        #expect(plans(first).isEmpty)
        let second = core.received(index([source("b", stream: 6, group: 4)], atCapacity: true), now: start)
        #expect(second.contains { if case .event(.remoteVideoSources([], ["a"])) = $0 { true } else { false } })
        #expect(second.contains { if case .event(.cameraSendAvailability(false)) = $0 { true } else { false } })
    }

    @Test func receivingRenegotiatesWithStableSlotsAndTracksComeBack() throws {
        var core = joined(sources: [source("a", stream: 3, group: 1), source("a", stream: 7, group: 1, kbps: 1_200),
                                    source("b", stream: 6, group: 4)])
        let start = self.start
        let first = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        // The best stream of each group, one slot each.
        #expect(first == SessionMediaPlan(sendsVideo: false, receiveSlots: [7, 6]))
        let subscribe = try #require(subscribes(core.mediaOfferReady("offer 2", now: start)).first)
        #expect(subscribe.receiveStreamIds == [0, 7, 6] && subscribe.sdpOffer == "offer 2")
        // A change while the answer is outstanding waits for it.
        #expect(plans(core.received(index([source("b", stream: 6, group: 4), source("c", stream: 9, group: 5)]), now: start)).isEmpty)
        let answered = core.received(frame(.subscribeAck) {
            $0.suback.sdpAnswer = "answer 2"
            var track = SdkTrackMapping()
            track.streamID = 6
            track.ssrc = 42
            track.trackLabel = "v_3"
            $0.suback.tracks = [track]
        }, now: start)
        let applied = answered.compactMap { if case .applyAnswer(let sdp, let video) = $0 { (sdp, video) } else { nil } }
        #expect(applied.count == 1 && applied[0].0 == "answer 2")
        #expect(applied[0].1.tracks == [SessionVideoNegotiation.Track(mid: "3", streamId: 6, groupId: 4, ssrc: 42, attendeeId: "b")])
        // Then the pending change: a's slot is freed and reused for c; b keeps its m-line.
        #expect(plans(answered) == [SessionMediaPlan(sendsVideo: false, receiveSlots: [9, 6])])
        #expect(core.mediaPlan.receiveSlots == [7, 6])
    }

    @Test func contentSharesDoNotCountTowardTheLimitOf25Tiles() throws {
        // 30 cameras and two shares (another attendee's and this attendee's own, which is never received).
        var sources = (1...30).map { source("cam-\($0)", stream: UInt32(100 + $0), group: UInt32($0)) }
        sources.append(source("cam-7#content", stream: 500, group: 40))
        sources.append(source("self-id#content", stream: 501, group: 41))
        var core = joined(sources: sources)
        let plan = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        #expect(plan.receiveSlots.count == 26)
        #expect(plan.receiveSlots.first == 500)
        #expect(Array(plan.receiveSlots.dropFirst()) == (1...25).map { UInt32(100 + $0) })
    }

    /// A renegotiation the server never answers is handled like an unanswered join step: after 15 s the session
    /// drops and reconnects (a new socket and a new media connection), not left waiting with a stale plan.
    @Test func anUnansweredRenegotiationReconnectsAfterTheStepTimeout() throws {
        var core = joined(sources: [source("a", stream: 3, group: 1)])
        _ = try #require(plans(core.setReceivingVideo(true, now: start)).first)
        _ = core.mediaOfferReady("offer 2", now: start)
        let deadline = start.monotonic + SignalingSessionCore.stepTimeout
        let early = SessionTime(monotonic: deadline - .milliseconds(1), unixNanoseconds: start.unixNanoseconds)
        #expect(!core.tick(now: early).contains { if case .closeSocket = $0 { true } else { false } })
        let late = SessionTime(monotonic: deadline, unixNanoseconds: start.unixNanoseconds)
        let actions = core.tick(now: late)
        #expect(actions.contains { if case .closeSocket = $0 { true } else { false } })
        #expect(actions.contains { if case .stopMedia = $0 { true } else { false } })
        #expect(actions.contains { if case .event(.dropped) = $0 { true } else { false } })
        // An answered renegotiation leaves no deadline behind.
        var answered = joined(sources: [source("a", stream: 3, group: 1)])
        _ = answered.setReceivingVideo(true, now: start)
        _ = answered.mediaOfferReady("offer 2", now: start)
        _ = answered.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer 2" }, now: start)
        #expect(answered.nextDeadline.map { $0 < deadline } == true)
        #expect(!answered.tick(now: late).contains { if case .closeSocket = $0 { true } else { false } })
    }

    @Test func sendingVideoOffersTheCameraAndKeepsItsAllocation() throws {
        var core = joined()
        let plan = try #require(plans(core.setSendingVideo(true, maxBitrateKbps: 800, now: start)).first)
        #expect(plan.sendsVideo && plan.receiveSlots.isEmpty)
        let subscribe = try #require(subscribes(core.mediaOfferReady("offer", now: start)).first)
        #expect(subscribe.duplex == .duplex)
        let video = try #require(subscribe.sendStreams.last)
        #expect(video.mediaType == .video && video.maxBitrateKbps == 800 && video.attendeeID == "self-id")
        _ = core.received(frame(.subscribeAck) {
            $0.suback.sdpAnswer = "answer"
            var allocation = SdkStreamAllocation()
            allocation.streamID = 11
            allocation.groupID = 12
            $0.suback.allocations = [allocation]
        }, now: start)
        // A later SUBSCRIBE re-sends the allocated ids.
        _ = core.setReceivingVideo(true, now: start)
        _ = core.received(index([source("a", stream: 3, group: 1)]), now: start)
        let again = subscribes(core.mediaOfferReady("offer 3", now: start)).first
        #expect(again?.sendStreams.last?.streamID == 11 && again?.sendStreams.last?.groupID == 12)
    }

    @Test func aRefusedSenderIsToldAndStopsOffering() throws {
        var core = joined()
        _ = core.setSendingVideo(true, now: start)
        _ = core.mediaOfferReady("offer", now: start)
        let refused = core.received(frame(.subscribeAck) {
            $0.suback.sdpAnswer = "answer"
            $0.error.status = 206
        }, now: start)
        #expect(refused.contains { if case .applyAnswer(_, let video) = $0 { video.sendingRefused } else { false } })
        #expect(refused.contains { if case .event(.videoStarted(.videoAtCapacityViewOnly)) = $0 { true } else { false } })
        #expect(core.isInMeeting)
    }

    @Test func aSourceWhoseBestLayerChangesKeepsItsSlotAndItsGroup() throws {
        // Two participants: a sends one unscaled layer (stream 7); a third joins and a sends low + hi (3 and 8).
        var core = joined(sources: [source("a", stream: 7, group: 1, kbps: 1_200), source("b", stream: 6, group: 4)])
        let start = self.start
        _ = core.setReceivingVideo(true, now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        #expect(core.mediaPlan.receiveSlots == [7, 6])
        let changed = core.received(index([source("a", stream: 3, group: 1, kbps: 300), source("a", stream: 8, group: 1, kbps: 1_200),
                                           source("b", stream: 6, group: 4)]), now: start)
        // The new best layer of group 1 takes the m-line of the old one: the same mid, SSRC and video.
        #expect(plans(changed) == [SessionMediaPlan(sendsVideo: false, receiveSlots: [8, 6])])
        _ = core.mediaOfferReady("offer 2", now: start)
        let answered = core.received(frame(.subscribeAck) {
            $0.suback.sdpAnswer = "answer 2"
            var track = SdkTrackMapping()
            track.streamID = 8
            track.ssrc = 42
            track.trackLabel = "v_2"
            $0.suback.tracks = [track]
        }, now: start)
        let applied = answered.compactMap { if case .applyAnswer(_, let video) = $0 { video } else { nil } }
        #expect(applied.map(\.tracks) == [[SessionVideoNegotiation.Track(mid: "2", streamId: 8, groupId: 1, ssrc: 42, attendeeId: "a")]])
        // A pause of the source names the stream now received.
        let paused = core.setRemoteVideoPaused(true, groupId: 1, now: start)
        #expect(paused.compactMap { if case .send(let frame) = $0 { frame.pause.streamIds } else { nil } } == [[UInt32(8)]])
    }

    @Test func pauseAndResumeNameTheStreamReceivedOfTheSource() throws {
        var core = joined(sources: [source("a", stream: 3, group: 1)])
        #expect(core.setRemoteVideoPaused(true, groupId: 1, now: start).isEmpty)
        _ = core.setReceivingVideo(true, now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        #expect(core.setRemoteVideoPaused(true, groupId: 3, now: start).isEmpty)
        let paused = core.setRemoteVideoPaused(true, groupId: 1, now: start)
        let sent = paused.compactMap { if case .send(let frame) = $0 { frame } else { nil } }
        #expect(sent.map(\.type) == [.pause] && sent.first?.pause.streamIds == [3])
        let resumed = core.setRemoteVideoPaused(false, groupId: 1, now: start)
        let types: [SdkSignalFrame.TypeEnum] = resumed.compactMap { action in
            guard case .send(let frame) = action else { return nil }
            return frame.type
        }
        #expect(types == [.resume])
    }

    @Test func everyStartReportsTheVideoSessionStartingOnce() {
        var core = joined()
        _ = core.stop(now: start)
        _ = core.received(frame(.leaveAck), now: start)
        _ = core.start(reconnectBudget: .seconds(120), now: start)
        _ = core.socketOpened(now: start)
        _ = core.received(frame(.joinAck), now: start)
        _ = core.received(index([]), now: start)
        _ = core.mediaOfferReady("offer", now: start)
        _ = core.received(frame(.subscribeAck) { $0.suback.sdpAnswer = "answer" }, now: start)
        let started = core.mediaConnected(now: start)
        #expect(started.contains { if case .event(.videoStarted(.ok)) = $0 { true } else { false } })
    }
}
