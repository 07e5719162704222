import CarillonProtocol
import Foundation
import NIOCore
import Testing

@testable import CarillonServer

/// Drives the meeting core with made-up clock readings and checks what it asks the shell to do.
@Suite struct MeetingSignalingCoreTests {
    let start = ClockReading(monotonic: NIODeadline.uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
    let alice = AttendeeIdentity(attendeeId: "a-1", externalUserId: "alice")
    let bob = AttendeeIdentity(attendeeId: "b-2", externalUserId: "bob")
    let carol = AttendeeIdentity(attendeeId: "c-3", externalUserId: "carol")
    let c1 = SignalingConnectionID(1), c2 = SignalingConnectionID(2), c3 = SignalingConnectionID(3)

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = 1
        frame.type = type
        build(&frame)
        return frame
    }

    func join(audioSessionId: UInt64 = 7) -> SdkSignalFrame {
        frame(.join) { $0.join.audioSessionID = audioSessionId; $0.join.protocolVersion = 2 }
    }

    func dataMessage(topic: String = "chat", bytes: Int = 5, lifetimeMs: UInt32 = 0) -> SdkSignalFrame {
        frame(.dataMessage) {
            var payload = SdkDataMessagePayload()
            payload.topic = topic
            payload.data = Data(repeating: 65, count: bytes)
            if lifetimeMs > 0 { payload.lifetimeMs = lifetimeMs }
            $0.dataMessage.messages = [payload]
        }
    }

    /// Frames sent to `connection`, in order.
    func sent(_ outputs: [MeetingSignalingOutput], to connection: SignalingConnectionID) -> [SdkSignalFrame] {
        outputs.compactMap {
            if case .send(let targets, let frame) = $0, targets.contains(connection) { return frame }
            return nil
        }
    }

    func closes(_ outputs: [MeetingSignalingOutput]) -> [(SignalingConnectionID, UInt16)] {
        outputs.compactMap {
            if case .close(let connection, let code) = $0 { return (connection, code) }
            return nil
        }
    }

    func joined(_ core: inout MeetingSignalingCore, _ connection: SignalingConnectionID, _ who: AttendeeIdentity,
                session: UInt64 = 7, at now: ClockReading? = nil) -> [MeetingSignalingOutput] {
        let now = now ?? start
        _ = core.accept(connection, identity: who, now: now)
        return core.receive(join(audioSessionId: session), from: connection, now: now)
    }

    @Test func joinAnswersAckIndexAndFullRosterInThatOrder() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        let outputs = joined(&core, c2, bob)
        let toBob = sent(outputs, to: c2)
        #expect(toBob.map(\.type) == [.joinAck, .index, .audioStreamIDInfo])
        #expect(toBob[0].joinack.hasDefaultServerSideNetworkAdaption)
        #expect(toBob[1].index.numParticipants == 2)
        let roster = toBob[2].audioStreamIDInfo.streams
        #expect(roster.map(\.attendeeID) == ["a-1", "b-2"])
        #expect(roster.allSatisfy { $0.hasMuted && !$0.muted })
        #expect(toBob.allSatisfy { $0.timestampMs == start.unixMilliseconds })
        // Alice hears only about Bob, and gets an INDEX with the new count.
        let toAlice = sent(outputs, to: c1)
        #expect(toAlice.map(\.type) == [.audioStreamIDInfo, .index])
        #expect(toAlice[1].index.numParticipants == 2)
        #expect(toAlice[0].audioStreamIDInfo.streams.map(\.attendeeID) == ["b-2"])
        #expect(toAlice[0].audioStreamIDInfo.streams[0].externalUserID == "bob")
    }

    @Test func pingIsAnsweredWithTheSameId() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = core.accept(c1, identity: alice, now: start)
        let outputs = core.receive(frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 41 }, from: c1, now: start)
        let pong = sent(outputs, to: c1)
        #expect(pong.count == 1)
        #expect(pong[0].pingPong.type == .pong)
        #expect(pong[0].pingPong.pingID == 41)
    }

    @Test func muteIsBroadcastOnlyOnChange() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let mute = frame(.audioControl) { $0.audioControl.muted = true }
        let first = core.receive(mute, from: c1, now: start)
        let entry = sent(first, to: c2).first?.audioStreamIDInfo.streams.first
        #expect(entry?.hasMuted == true && entry?.muted == true)
        #expect(entry?.hasAttendeeID == false)
        #expect(sent(first, to: c1).count == 1)
        #expect(core.receive(mute, from: c1, now: start).isEmpty)
    }

    @Test func muteChangesAreHandedToTheMixer() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        let outputs = core.receive(frame(.audioControl) { $0.audioControl.muted = true }, from: c1, now: start)
        #expect(outputs.contains { if case .audioMuted("a-1", true) = $0 { true } else { false } })
        #expect(core.isMuted("a-1") && !core.isMuted("b-2"))
    }

    /// An attendee that joins muted says so in SUBSCRIBE `audio_muted` (with its `audio_host`): the others' roster
    /// and the mixer learn it then, without waiting for an AUDIO_CONTROL. Without audio the field means nothing.
    @Test func theMuteStateInSubscribeIsApplied() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let videoOnly = core.receive(frame(.subscribe) { $0.sub.sdpOffer = "v=0 offer"; $0.sub.audioMuted = true }, from: c1, now: start)
        #expect(!core.isMuted("a-1"))
        #expect(!videoOnly.contains { if case .audioMuted = $0 { true } else { false } })
        let outputs = core.receive(frame(.subscribe) {
            $0.sub.sdpOffer = "v=0 offer"
            $0.sub.audioHost = "udp://127.0.0.1:3478"
            $0.sub.audioMuted = true
        }, from: c1, now: start)
        #expect(core.isMuted("a-1") && !core.isMuted("b-2"))
        #expect(outputs.contains { if case .audioMuted("a-1", true) = $0 { true } else { false } })
        let entry = sent(outputs, to: c2).first?.audioStreamIDInfo.streams.first
        #expect(entry?.hasMuted == true && entry?.muted == true)
        #expect(outputs.contains { if case .subscribe(c1, "a-1", "v=0 offer", _) = $0 { true } else { false } })
        // Unmuted in a later SUBSCRIBE (a renegotiation after unmuting): applied the same way.
        _ = core.receive(frame(.subscribe) {
            $0.sub.sdpOffer = "v=0 offer 2"
            $0.sub.audioHost = "udp://127.0.0.1:3478"
            $0.sub.audioMuted = false
        }, from: c1, now: start)
        #expect(!core.isMuted("a-1"))
    }

    @Test func subscribeNeedsAJoinAndAnOfferAndLeaveEndsMedia() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = core.accept(c1, identity: alice, now: start)
        let early = core.receive(frame(.subscribe) { $0.sub.sdpOffer = "v=0" }, from: c1, now: start)
        #expect(!early.contains { if case .subscribe = $0 { true } else { false } })
        _ = core.receive(join(), from: c1, now: start)
        let empty = core.receive(frame(.subscribe) { $0.sub.duplex = .rx }, from: c1, now: start)
        #expect(sent(empty, to: c1).first?.error.status == 400)
        let offered = core.receive(frame(.subscribe) { $0.sub.sdpOffer = "v=0 offer" }, from: c1, now: start)
        guard case .subscribe(let connection, let attendeeId, let offer, _)? = offered.first else {
            Issue.record("no subscribe output: \(offered)")
            return
        }
        #expect(connection == c1 && attendeeId == "a-1" && offer == "v=0 offer")
        let left = core.receive(frame(.leave), from: c1, now: start)
        #expect(left.contains { if case .endMedia(let target) = $0 { target == c1 } else { false } })
    }

    @Test func audioMetadataCarriesStreamIdsAndPresenceOfEachField() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let outputs = core.audioMetadata([("a-1", 12, 2), ("b-2", nil, 1), ("nobody", 3, 2)], now: start)
        let frames = sent(outputs, to: c2)
        #expect(frames.count == 1 && sent(outputs, to: c1).count == 1)
        let states = frames.first?.audioMetadata.attendeeStates ?? []
        #expect(states.count == 2)
        #expect(states.first?.volume == 12 && states.first?.hasVolume == true && states.first?.signalStrength == 2)
        #expect(states.last?.hasVolume == false && states.last?.signalStrength == 1)
        #expect(states.map(\.audioStreamID).allSatisfy { $0 != 0 })
        #expect(core.audioMetadata([("nobody", 3, 2)], now: start).isEmpty)
    }

    @Test func leaveIsAnnouncedAsCleanAndAcknowledged() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let outputs = core.receive(frame(.leave), from: c2, now: start)
        #expect(sent(outputs, to: c2).map(\.type) == [.leaveAck])
        let leave = sent(outputs, to: c1).first?.audioStreamIDInfo.streams.first
        #expect(leave?.audioStreamID == 2)
        #expect(leave?.hasAttendeeID == false)
        #expect(leave?.hasDropped == false)
        // The socket closing afterwards is not a drop.
        _ = core.disconnected(c2, now: start)
        #expect(core.tick(now: start.advanced(by: .seconds(60))).allSatisfy {
            if case .send(_, let frame) = $0 { return frame.type != .audioStreamIDInfo }
            return true
        })
        #expect(core.presentAttendeeIds == ["a-1"])
    }

    @Test func vanishedSocketIsReportedDroppedAfterTheGrace() {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.dropGrace = .seconds(2)
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        #expect(core.disconnected(c2, now: start).isEmpty)
        #expect(core.nextDeadline == start.monotonic + .seconds(2))
        #expect(sent(core.tick(now: start.advanced(by: .seconds(1))), to: c1).isEmpty)
        let later = core.tick(now: start.advanced(by: .seconds(2)))
        let drop = sent(later, to: c1).first?.audioStreamIDInfo.streams.first
        #expect(drop?.audioStreamID == 2)
        #expect(drop?.dropped == true)
        #expect(core.presentAttendeeIds == ["a-1"])
    }

    /// The lifecycle activities of the outputs, as `attendeeId:activity`.
    func activities(_ outputs: [MeetingSignalingOutput]) -> [String] {
        outputs.compactMap {
            if case .activity(let identity, let activity) = $0 { return "\(identity.attendeeId):\(activity)" }
            return nil
        }
    }

    @Test func joinsLeavesAndDropsAreReportedOnceAndAReconnectIsNotAJoin() {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.dropGrace = .seconds(2)
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        #expect(activities(joined(&core, c1, alice)) == ["a-1:joined"])
        #expect(activities(joined(&core, c2, bob, session: 99)) == ["b-2:joined"])
        _ = core.disconnected(c2, now: start)
        #expect(activities(joined(&core, c3, bob, session: 99, at: start.advanced(by: .seconds(1)))).isEmpty)
        #expect(activities(core.receive(frame(.leave), from: c1, now: start.advanced(by: .seconds(1)))) == ["a-1:left"])
        _ = core.disconnected(c3, now: start.advanced(by: .seconds(1)))
        #expect(activities(core.tick(now: start.advanced(by: .seconds(3)))) == ["b-2:dropped"])
    }

    @Test func reconnectWithinGraceMovesToANewStreamIdWithoutADrop() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob, session: 99)
        _ = core.disconnected(c2, now: start)
        let outputs = joined(&core, c3, bob, session: 99, at: start.advanced(by: .seconds(1)))
        let news = sent(outputs, to: c1).first?.audioStreamIDInfo.streams ?? []
        // New id announced before the old one is retired.
        #expect(news.map(\.audioStreamID) == [3, 2])
        #expect(news[0].attendeeID == "b-2")
        #expect(news[1].hasDropped == false && !news[1].hasAttendeeID)
        #expect(core.tick(now: start.advanced(by: .seconds(30))).isEmpty)
        #expect(core.presentAttendeeIds == ["a-1", "b-2"])
    }

    @Test func secondDeviceGetsTheOldSocketStatus301AndClosed() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice, session: 1)
        let outputs = joined(&core, c2, alice, session: 2)
        let toOld = sent(outputs, to: c1)
        #expect(toOld.first?.type == .audioStatus)
        #expect(toOld.first?.audioStatus.audioStatus == 301)
        #expect(closes(outputs).map(\.0) == [c1])
    }

    @Test func dataMessagesAreStampedAndFannedOutToOthersOnly() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        _ = joined(&core, c3, carol)
        let outputs = core.receive(dataMessage(), from: c1, now: start)
        #expect(sent(outputs, to: c1).isEmpty)
        for other in [c2, c3] {
            let message = sent(outputs, to: other).first?.dataMessage.messages.first
            #expect(message?.senderAttendeeID == "a-1")
            #expect(message?.senderExternalUserID == "alice")
            #expect(message?.ingestTimeNs == start.unixNanoseconds)
            #expect(message?.topic == "chat")
        }
    }

    @Test func ingestTimesStrictlyIncreaseEvenWhenTheWallClockStandsStill() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let first = sent(core.receive(dataMessage(), from: c1, now: start), to: c2)[0].dataMessage.messages[0]
        let second = sent(core.receive(dataMessage(), from: c1, now: start), to: c2)[0].dataMessage.messages[0]
        #expect(second.ingestTimeNs > first.ingestTimeNs)
    }

    @Test func throttledMessagesGoBackToTheSenderWithoutIngestTime() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        var delivered = 0, bounced = 0
        for _ in 0..<250 {
            let outputs = core.receive(dataMessage(), from: c1, now: start)
            delivered += sent(outputs, to: c2).count
            for frame in sent(outputs, to: c1) {
                #expect(frame.dataMessage.messages.allSatisfy { !$0.hasIngestTimeNs && $0.senderAttendeeID == "a-1" })
                bounced += frame.dataMessage.messages.count
            }
        }
        // Alone, a sender gets its share (100) and the meeting's bucket down to its reserve (50 of 200).
        #expect(delivered == 150)
        #expect(bounced == 100)
        // A tenth of a second later the meeting's ten new tokens are its: five through its share, five above the reserve.
        let later = start.advanced(by: .milliseconds(100))
        var afterRefill = 0
        for _ in 0..<20 { afterRefill += sent(core.receive(dataMessage(), from: c1, now: later), to: c2).count }
        #expect(afterRefill == 10)
        // Sustained, it gets the meeting's whole rate: 100 a second.
        var sustained = 0
        for tick in 1...100 {
            let now = later.advanced(by: .milliseconds(Int64(tick) * 10))
            for _ in 0..<3 { sustained += sent(core.receive(dataMessage(), from: c1, now: now), to: c2).count }
        }
        #expect(sustained == 100)
    }

    /// One attendee flooding cannot take a bystander's messages: the reserve a sender beyond its share leaves in the
    /// meeting's bucket carries the bystander's, which go through while the flooder's keep coming back throttled.
    @Test func aFlooderDoesNotThrottleABystander() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        var flooded = 0
        for _ in 0..<300 { flooded += sent(core.receive(dataMessage(), from: c1, now: start), to: c2).count }
        #expect(flooded == 150)
        var bystander = 0, bounced = 0
        for _ in 0..<20 {
            let outputs = core.receive(dataMessage(), from: c2, now: start)
            bystander += sent(outputs, to: c1).count
            bounced += sent(outputs, to: c2).count
        }
        #expect(bystander == 20 && bounced == 0)
        #expect(sent(core.receive(dataMessage(), from: c1, now: start), to: c2).isEmpty)
    }

    @Test func invalidDataMessagesAreRejectedWithAWarningAndNotDelivered() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        for bad in [dataMessage(topic: "no spaces"), dataMessage(topic: String(repeating: "t", count: 37)),
                    dataMessage(topic: ""), dataMessage(bytes: 2049)] {
            let outputs = core.receive(bad, from: c1, now: start)
            #expect(sent(outputs, to: c2).isEmpty)
            let warning = sent(outputs, to: c1).first
            #expect(warning?.type == .notification)
            #expect(warning?.notification.level == .warning)
            #expect(warning?.hasError == false)
        }
        #expect(sent(core.receive(dataMessage(bytes: 2048), from: c1, now: start), to: c2).count == 1)
    }

    /// A frame of 100 000 empty data messages (one attendee of any meeting silenced every meeting with two): refused
    /// whole with one warning, nothing relayed; 16 bad ones get one warning between them.
    @Test func aFrameOfTooManyDataMessagesIsRefusedWholeWithOneWarning() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        var flood = dataMessage()
        flood.dataMessage.messages = Array(repeating: SdkDataMessagePayload(), count: 100_000)
        let outputs = core.receive(flood, from: c1, now: start)
        #expect(sent(outputs, to: c2).isEmpty)
        #expect(sent(outputs, to: c1).map(\.type) == [.notification])
        #expect(closes(outputs).isEmpty)
        var bad = dataMessage()
        bad.dataMessage.messages = Array(repeating: SdkDataMessagePayload(), count: 16)
        let warned = core.receive(bad, from: c1, now: start)
        #expect(sent(warned, to: c2).isEmpty)
        #expect(sent(warned, to: c1).map(\.notification.message) == ["data message rejected: topic \"\" must match ^[a-zA-Z0-9_-]{1,36}$ (and 15 more)"])
    }

    /// Past the hard limits of `policies.md` §4 (per session 200/s, burst 2000; per meeting 500/s, burst 10 000) the
    /// sender is cut off with 4429 and the frame is dropped; a sender within them is only throttled.
    @Test func aSenderPastTheHardLimitIsClosedAndItsFrameDropped() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        var batch = dataMessage()
        batch.dataMessage.messages = Array(repeating: batch.dataMessage.messages[0], count: 16)
        // 125 frames of 16 = the burst of 2000: throttled, never closed.
        var relayed = 0
        for _ in 0..<125 {
            let outputs = core.receive(batch, from: c1, now: start)
            #expect(closes(outputs).isEmpty)
            relayed += sent(outputs, to: c2).reduce(0) { $0 + $1.dataMessage.messages.count }
        }
        #expect(relayed == 150, "a lone sender's soft burst: its share and the meeting's bucket down to the reserve")
        let over = core.receive(batch, from: c1, now: start)
        #expect(closes(over).map(\.0) == [c1] && closes(over).map(\.1) == [SignalingCloseCode.tooManyRequests])
        #expect(sent(over, to: c2).isEmpty)
        // Bob's own session has its own allowance.
        #expect(closes(core.receive(dataMessage(), from: c2, now: start)).isEmpty)
    }

    /// Any kind of frame counts toward the session's frame limit (300 a second, burst 3000): 3000 PINGs at once are
    /// answered, the next closes the session with 4429; a second later there is room for 300 more.
    @Test func aSessionPastTheFrameLimitIsClosed() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        let ping = frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 1 }
        var answered = 0
        for _ in 0..<2_999 { answered += sent(core.receive(ping, from: c1, now: start), to: c1).count }
        #expect(answered == 2_999)
        #expect(closes(core.receive(ping, from: c1, now: start)).map(\.1) == [SignalingCloseCode.tooManyRequests])
        _ = joined(&core, c2, bob)
        for _ in 0..<2_999 { _ = core.receive(ping, from: c2, now: start) }
        let later = start.advanced(by: .seconds(1))
        var calm = 0
        for _ in 0..<300 { calm += closes(core.receive(ping, from: c2, now: later)).count }
        #expect(calm == 0)
    }

    /// A SUBSCRIBE announcing 30 000 video streams (every other attendee's INDEX grew past the SDK's frame limit) is
    /// refused with 400 and publishes nothing.
    @Test func aSubscribeWithTooManyStreamsIsRefused() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let subscribe = frame(.subscribe) {
            $0.sub.sdpOffer = "v=0"
            var stream = SdkStreamDescriptor()
            stream.mediaType = .video
            stream.maxBitrateKbps = 100
            $0.sub.sendStreams = Array(repeating: stream, count: 30_000)
        }
        let outputs = core.receive(subscribe, from: c1, now: start)
        let reply = sent(outputs, to: c1)
        #expect(reply.count == 1 && reply.first?.error.status == 400)
        #expect(sent(outputs, to: c2).isEmpty)
        #expect(!outputs.contains { if case .send(_, let frame) = $0 { frame.type == .index } else { false } })
    }

    @Test func storedMessagesAreReplayedToLateJoinersUntilTheyExpire() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = core.receive(dataMessage(topic: "kept", lifetimeMs: 10_000), from: c1, now: start)
        _ = core.receive(dataMessage(topic: "notkept"), from: c1, now: start)
        let late = joined(&core, c2, bob, at: start.advanced(by: .seconds(5)))
        let replay = sent(late, to: c2).last
        #expect(replay?.type == .dataMessage)
        #expect(replay?.dataMessage.messages.map(\.topic) == ["kept"])
        #expect(replay?.dataMessage.messages.first?.senderAttendeeID == "a-1")
        let tooLate = joined(&core, c3, carol, at: start.advanced(by: .seconds(11)))
        #expect(sent(tooLate, to: c3).allSatisfy { $0.type != .dataMessage })
    }

    /// A full replay buffer (1024 messages of 2 KiB) goes to a late joiner in frames of 100 messages, each well under
    /// the clients' 1 MiB frame limit (one frame of 2 MiB before), in order.
    @Test func aLargeReplayIsSplitIntoFramesUnderTheClientsLimit() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.throttleBurst = 2_000
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        _ = joined(&core, c1, alice)
        for second in 0..<11 {
            for _ in 0..<100 {
                _ = core.receive(dataMessage(bytes: 2048, lifetimeMs: 60_000), from: c1,
                                 now: start.advanced(by: .seconds(Int64(second))))
            }
        }
        let late = joined(&core, c2, bob, at: start.advanced(by: .seconds(12)))
        let frames = sent(late, to: c2).filter { $0.type == .dataMessage }
        #expect(frames.map(\.dataMessage.messages.count) == Array(repeating: 100, count: 10) + [24])
        for frame in frames { #expect(try SignalFrameCodec.encode(frame).count < 256 * 1024) }
        let times = frames.flatMap { $0.dataMessage.messages.map(\.ingestTimeNs) }
        #expect(times == times.sorted())
    }

    @Test func malformedFrameGetsAnErrorFrameAndTheSocketStaysOpen() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        let outputs = core.receiveMalformed(from: c1, reason: "garbage", now: start)
        #expect(sent(outputs, to: c1).first?.error.status == 400)
        #expect(closes(outputs).isEmpty)
        #expect(sent(core.receive(dataMessage(), from: c1, now: start), to: c1).isEmpty)
    }

    @Test func framesBeforeJoinAreRefusedWithAWarning() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = core.accept(c2, identity: bob, now: start)
        let outputs = core.receive(dataMessage(), from: c2, now: start)
        #expect(sent(outputs, to: c1).isEmpty)
        #expect(sent(outputs, to: c2).first?.notification.level == .warning)
    }

    @Test func endingTheMeetingSendsStatus410ThenClosesEverySocket() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let outputs = core.endMeeting(now: start)
        guard case .send(let targets, let frame) = outputs.first else {
            Issue.record("expected a frame first")
            return
        }
        #expect(Set(targets) == [c1, c2])
        #expect(frame.audioStatus.audioStatus == 410)
        #expect(Set(closes(outputs).map(\.0)) == [c1, c2])
        #expect(closes(outputs).allSatisfy { $0.1 == SignalingCloseCode.meetingEnded })
        #expect(closes(core.accept(c3, identity: carol, now: start)).map(\.1) == [SignalingCloseCode.meetingEnded])
    }

    @Test func removingAnAttendeeSends411ClosesItAndTellsOthers() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        let outputs = core.removeAttendee("b-2", now: start)
        #expect(sent(outputs, to: c2).first?.audioStatus.audioStatus == 411)
        #expect(closes(outputs).map(\.0) == [c2])
        #expect(sent(outputs, to: c1).first?.audioStreamIDInfo.streams.first?.audioStreamID == 2)
        #expect(core.presentAttendeeIds == ["a-1"])
    }

    @Test func silentSocketsAreClosedAfterTheIdleTimeout() {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.idleTimeout = .seconds(40)
        configuration.dropGrace = .seconds(5)
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        _ = joined(&core, c1, alice)
        _ = joined(&core, c2, bob)
        _ = core.receive(frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 1 }, from: c1,
                         now: start.advanced(by: .seconds(30)))
        let outputs = core.tick(now: start.advanced(by: .seconds(40)))
        #expect(closes(outputs).map(\.0) == [c2])
        let dropped = sent(core.tick(now: start.advanced(by: .seconds(45))), to: c1).first?.audioStreamIDInfo.streams
        #expect(dropped?.first?.dropped == true)
    }

    /// A socket that never joins is closed 10 s after it opened, however often it pings; a joined one only after
    /// 40 s of silence.
    @Test func aSocketThatNeverJoinsIsClosedAfterTheJoinTimeout() {
        var core = MeetingSignalingCore(meetingId: "m")
        _ = joined(&core, c1, alice)
        _ = core.accept(c2, identity: bob, now: start)
        #expect(core.nextDeadline == start.monotonic + .seconds(10))
        _ = core.receive(frame(.pingPong) { $0.pingPong.type = .ping; $0.pingPong.pingID = 1 }, from: c2,
                         now: start.advanced(by: .seconds(5)))
        #expect(closes(core.tick(now: start.advanced(by: .milliseconds(9_999)))).isEmpty)
        let outputs = core.tick(now: start.advanced(by: .seconds(10)))
        #expect(closes(outputs).map(\.0) == [c2] && closes(outputs).map(\.1) == [SignalingCloseCode.idle])
        #expect(core.nextDeadline == start.monotonic + .seconds(40))
    }
}
