import CarillonProtocol
import NIOCore
import Testing

@testable import CarillonServer

/// The video rules of the meeting core: publications, INDEX, allocations and tracks, the sender limit, PAUSE.
@Suite struct MeetingSignalingVideoTests {
    let now = ClockReading(monotonic: NIODeadline.uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
    let people = (1...4).map { AttendeeIdentity(attendeeId: "att-\($0)", externalUserId: "user-\($0)") }

    func connection(_ index: Int) -> SignalingConnectionID { SignalingConnectionID(UInt64(index)) }

    func joinAll(_ core: inout MeetingSignalingCore, count: Int) {
        for index in 0..<count {
            _ = core.accept(connection(index + 1), identity: people[index], now: now)
            var join = SdkSignalFrame()
            join.type = .join
            join.join.protocolVersion = 2
            _ = core.receive(join, from: connection(index + 1), now: now)
        }
    }

    func subscribe(sending: Bool, receive: [UInt32] = [0], bitrate: UInt32 = 1_400) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.type = .subscribe
        frame.sub.sdpOffer = "offer"
        frame.sub.duplex = sending ? .duplex : .rx
        var audio = SdkStreamDescriptor()
        audio.mediaType = .audio
        audio.streamID = 1
        frame.sub.sendStreams = [audio]
        if sending {
            var video = SdkStreamDescriptor()
            video.mediaType = .video
            video.trackLabel = "AmazonChimeExpressVideo"
            video.streamID = 2
            video.groupID = 2
            video.framerate = 15
            video.maxBitrateKbps = bitrate
            frame.sub.sendStreams.append(video)
        }
        frame.sub.receiveStreamIds = receive
        return frame
    }

    /// Sends SUBSCRIBE from `index` and answers it with `tracks`; returns the request and every output.
    func subscribed(_ core: inout MeetingSignalingCore, _ index: Int, _ frame: SdkSignalFrame,
                    tracks: [SubscribeAnswer.Track] = []) -> (VideoSubscribeRequest?, [MeetingSignalingOutput]) {
        let outputs = core.receive(frame, from: connection(index), now: now)
        guard case .subscribe(_, _, _, let video)? = outputs.first else { return (nil, outputs) }
        return (video, core.subscribeAnswered(connection(index), answer: .success(SubscribeAnswer(sdp: "answer", tracks: tracks)),
                                              now: now))
    }

    func frames(_ outputs: [MeetingSignalingOutput], to index: Int, _ type: SdkSignalFrame.TypeEnum) -> [SdkSignalFrame] {
        outputs.compactMap {
            if case .send(let targets, let frame) = $0, targets.contains(connection(index)), frame.type == type { return frame }
            return nil
        }
    }

    @Test func aPublisherGetsAllocationsAndEveryoneElseAnIndexWithoutTheirOwnCamera() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 3)
        let (request, outputs) = subscribed(&core, 1, subscribe(sending: true))
        #expect(request?.sending == .allowed)
        let ack = try #require(frames(outputs, to: 1, .subscribeAck).first)
        #expect(ack.suback.duplex == .duplex && !ack.hasError)
        #expect(ack.suback.allocations.count == 1)
        let allocation = ack.suback.allocations[0]
        #expect(allocation.streamID > 0 && allocation.groupID > 0 && allocation.trackLabel == "AmazonChimeExpressVideo")
        // The publisher gets no INDEX listing itself; the others get one source each.
        #expect(frames(outputs, to: 1, .index).isEmpty)
        for index in [2, 3] {
            let sources = try #require(frames(outputs, to: index, .index).first).index.sources
            #expect(sources.count == 1)
            #expect(sources[0].streamID == allocation.streamID && sources[0].groupID == allocation.groupID)
            #expect(sources[0].mediaType == .video && sources[0].attendeeID == "att-1")
            #expect(sources[0].externalUserID == "user-1" && sources[0].maxBitrateKbps == 1_400)
            #expect(sources[0].framerate == 15)
            #expect(frames(outputs, to: index, .index).first?.index.supportedReceiveCodecIntersection == [.vp8])
        }
        // A renegotiation keeps the ids and sends no new INDEX when nothing changed.
        let (_, again) = subscribed(&core, 1, subscribe(sending: true))
        #expect(frames(again, to: 1, .subscribeAck).first?.suback.allocations == [allocation])
        #expect(frames(again, to: 2, .index).isEmpty)
    }

    @Test func receiveStreamIdsResolvePositionallyToPublishers() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 3)
        let (_, first) = subscribed(&core, 1, subscribe(sending: true))
        let (_, second) = subscribed(&core, 2, subscribe(sending: true))
        let one = try #require(frames(first, to: 1, .subscribeAck).first).suback.allocations[0]
        let two = try #require(frames(second, to: 2, .subscribeAck).first).suback.allocations[0]
        #expect(two.groupID > one.groupID && two.streamID != one.streamID)
        let tracks = [SubscribeAnswer.Track(mid: "2", streamId: one.streamID, ssrc: 77)]
        let (request, outputs) = subscribed(&core, 3, subscribe(sending: false, receive: [0, one.streamID, two.streamID, 999]),
                                            tracks: tracks)
        #expect(request?.sending == VideoSubscribeRequest.Sending.none)
        #expect(request?.receive.count == 4)
        #expect(request?.receive[0] == nil && request?.receive[3] == nil)
        #expect(request?.receive[1] == VideoSourceReference(publisher: connection(1), streamId: one.streamID,
                                                            groupId: one.groupID, attendeeId: "att-1"))
        #expect(request?.receive[2]?.publisher == connection(2))
        let ack = try #require(frames(outputs, to: 3, .subscribeAck).first).suback
        #expect(ack.tracks.count == 1)
        #expect(ack.tracks[0].trackLabel == "v_2" && ack.tracks[0].ssrc == 77 && ack.tracks[0].streamID == one.streamID)
        // A publisher cannot subscribe to its own camera.
        let (own, _) = subscribed(&core, 1, subscribe(sending: true, receive: [0, one.streamID]))
        #expect(own?.receive[1] == nil)
    }

    @Test func theSenderLimitRefusesWith206AndIndexSaysAtCapacity() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.maximumVideoSenders = 2
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        joinAll(&core, count: 4)
        _ = subscribed(&core, 1, subscribe(sending: true))
        let (_, second) = subscribed(&core, 2, subscribe(sending: true))
        #expect(frames(second, to: 3, .index).first?.index.atCapacity == true)
        #expect(frames(second, to: 1, .index).first?.index.atCapacity == false)
        let (request, refused) = subscribed(&core, 3, subscribe(sending: true))
        #expect(request?.sending == .refused)
        let ack = try #require(frames(refused, to: 3, .subscribeAck).first)
        #expect(ack.error.status == 206 && ack.suback.allocations.isEmpty && ack.suback.sdpAnswer == "answer")
        // When a sender stops, the slot frees up: INDEX tells the others.
        let (_, stopped) = subscribed(&core, 1, subscribe(sending: false))
        #expect(frames(stopped, to: 3, .index).first?.index.atCapacity == false)
        #expect(frames(stopped, to: 3, .index).first?.index.sources.count == 1)
        let (retry, _) = subscribed(&core, 3, subscribe(sending: true))
        #expect(retry?.sending == .allowed)
    }

    @Test func aPublisherThatLeavesOrDropsIsRemovedFromIndex() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 3)
        _ = subscribed(&core, 1, subscribe(sending: true))
        _ = subscribed(&core, 2, subscribe(sending: true))
        var leave = SdkSignalFrame()
        leave.type = .leave
        let left = core.receive(leave, from: connection(1), now: now)
        #expect(frames(left, to: 3, .index).first?.index.sources.map(\.attendeeID) == ["att-2"])
        let dropped = core.disconnected(connection(2), now: now)
        #expect(frames(dropped, to: 3, .index).first?.index.sources.isEmpty == true)
        // A late joiner sees no stale source.
        _ = core.accept(connection(9), identity: people[3], now: now)
        var join = SdkSignalFrame()
        join.type = .join
        let joined = core.receive(join, from: connection(9), now: now)
        #expect(frames(joined, to: 9, .index).first?.index.sources.isEmpty == true)
    }

    @Test func pauseAndResumeReachTheMediaSide() {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 1)
        var pause = SdkSignalFrame()
        pause.type = .pause
        pause.pause.streamIds = [4]
        let outputs = core.receive(pause, from: connection(1), now: now)
        #expect(outputs.contains { if case .pauseVideo(let c, [4], true) = $0 { c == connection(1) } else { false } })
        pause.type = .resume
        let resumed = core.receive(pause, from: connection(1), now: now)
        #expect(resumed.contains { if case .pauseVideo(_, [4], false) = $0 { true } else { false } })
    }

    /// A simulcast publisher (`send_streams` low, mid, hi; mid disabled at 0 kbps): the media side learns the layers'
    /// stream ids in order, INDEX lists the two active layers of one group with their sizes, and a receiver's
    /// REMOTE_VIDEO_UPDATE naming a stream reaches the media side as a layer switch.
    @Test func simulcastLayersReachIndexAndTheMediaSide() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        joinAll(&core, count: 2)
        var frame = subscribe(sending: false)
        frame.sub.duplex = .duplex
        for (width, bitrate) in [(320, 200), (640, 0), (1280, 1_200)] as [(UInt32, UInt32)] {
            var layer = SdkStreamDescriptor()
            layer.mediaType = .video
            layer.framerate = 15
            layer.maxBitrateKbps = bitrate
            layer.width = width
            layer.height = width * 9 / 16
            frame.sub.sendStreams.append(layer)
        }
        let (request, outputs) = subscribed(&core, 1, frame)
        let allocations = try #require(frames(outputs, to: 1, .subscribeAck).first).suback.allocations
        #expect(allocations.count == 3 && Set(allocations.map(\.groupID)).count == 1)
        #expect(request?.sendStreamIds == allocations.map(\.streamID))
        let sources = try #require(frames(outputs, to: 2, .index).first).index.sources
        #expect(sources.map(\.streamID) == [allocations[0].streamID, allocations[2].streamID])
        #expect(sources.map(\.width) == [320, 1_280] && sources.map(\.height) == [180, 720])
        #expect(sources.map(\.maxBitrateKbps) == [200, 1_200] && sources.allSatisfy { $0.groupID == allocations[0].groupID })
        var update = SdkSignalFrame()
        update.type = .remoteVideoUpdate
        var entry = SdkVideoSubscriptionConfiguration()
        entry.mid = "3"
        entry.attendeeID = "att-1"
        entry.streamID = allocations[0].streamID
        update.remoteVideoUpdate.addedOrUpdatedVideoSubscriptions = [entry]
        let switched = core.receive(update, from: connection(2), now: now)
        #expect(switched.contains {
            if case .selectVideoLayer(let c, "3", let id) = $0 { c == connection(2) && id == allocations[0].streamID } else { false }
        })
        // Measured rates go to everyone, the sender included, for the streams publications list.
        let rates = core.videoBitrates([(allocations[0].streamID, 150_000), (999, 1)], now: now)
        for index in [1, 2] {
            let bitrates = try #require(frames(rates, to: index, .bitrates).first).bitrates.bitrates
            #expect(bitrates.map(\.sourceStreamID) == [allocations[0].streamID] && bitrates.map(\.avgBitrateBps) == [150_000])
        }
    }

    /// `num_participants` drives Chime's simulcast table (a Chromium sender goes from mid alone to low + hi when a
    /// third attendee joins), so every change of it reaches the others in a new INDEX (`signaling.md` §3.9): a join, a
    /// leave (one INDEX with the leaver's publication gone), and a drop after the grace. A reconnect is no change.
    @Test func everyChangeOfTheParticipantCountReachesTheOthersInOneIndex() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.dropGrace = .seconds(2)
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        /// Attendee `person` (1-based, default `index`) joins on connection `index`.
        func join(_ index: Int, as person: Int? = nil, at time: ClockReading) -> [MeetingSignalingOutput] {
            _ = core.accept(connection(index), identity: people[(person ?? index) - 1], now: time)
            var join = SdkSignalFrame()
            join.type = .join
            join.join.protocolVersion = 2
            join.join.audioSessionID = 7
            return core.receive(join, from: connection(index), now: time)
        }
        func counts(_ outputs: [MeetingSignalingOutput], to indices: [Int]) -> [[UInt32]] {
            indices.map { index in frames(outputs, to: index, .index).map(\.index.numParticipants) }
        }
        _ = join(1, at: now)
        #expect(counts(join(2, at: now), to: [1, 2]) == [[2], [2]])
        _ = subscribed(&core, 1, subscribe(sending: true))
        #expect(counts(join(3, at: now), to: [1, 2, 3]) == [[3], [3], [3]])
        // A publisher leaves: one INDEX each, without its camera and with the new count.
        var leave = SdkSignalFrame()
        leave.type = .leave
        let left = core.receive(leave, from: connection(1), now: now)
        #expect(counts(left, to: [2, 3]) == [[2], [2]])
        #expect(frames(left, to: 2, .index).first?.index.sources.isEmpty == true)
        #expect(counts(join(4, at: now), to: [2, 3]) == [[3], [3]])
        // Attendee 4's socket vanishes and it reconnects within the grace: no new count.
        _ = core.disconnected(connection(4), now: now)
        #expect(counts(join(5, as: 4, at: now).filter { output in
            if case .send(let targets, _) = output { !targets.contains(connection(5)) } else { true }
        }, to: [2, 3]) == [[], []])
        // Attendee 3's socket vanishes: after the grace the others get the count without it.
        _ = core.disconnected(connection(3), now: now)
        #expect(counts(core.tick(now: now.advanced(by: .seconds(1))), to: [2, 5]) == [[], []])
        #expect(counts(core.tick(now: now.advanced(by: .seconds(2))), to: [2, 5]) == [[2], [2]])
    }
}

