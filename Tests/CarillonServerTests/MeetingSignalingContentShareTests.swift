import CarillonProtocol
import NIOCore
import Testing

@testable import CarillonServer

/// The content-share rules of the meeting core: `<attendeeId>#content` sessions, two per meeting (a third refused
/// at JOIN with AUDIO_STATUS 409 and close 4409), one per attendee (a second replaces the first), and content not
/// counting toward the camera sender limit.
@Suite struct MeetingSignalingContentShareTests {
    let now = ClockReading(monotonic: NIODeadline.uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
    let video = MeetingSignalingVideoTests()

    func person(_ index: Int) -> AttendeeIdentity { AttendeeIdentity(attendeeId: "att-\(index)", externalUserId: "user-\(index)") }
    func share(_ index: Int) -> AttendeeIdentity {
        AttendeeIdentity(attendeeId: "att-\(index)#content", externalUserId: "user-\(index)#content")
    }
    func connection(_ index: Int) -> SignalingConnectionID { SignalingConnectionID(UInt64(index)) }

    /// Accepts `identity` on `connection(index)` and sends its JOIN; returns the outputs of the JOIN.
    func join(_ core: inout MeetingSignalingCore, _ index: Int, _ identity: AttendeeIdentity,
              audioSessionId: UInt64 = 7) -> [MeetingSignalingOutput] {
        _ = core.accept(connection(index), identity: identity, now: now)
        var join = SdkSignalFrame()
        join.type = .join
        join.join.protocolVersion = 2
        join.join.audioSessionID = audioSessionId
        return core.receive(join, from: connection(index), now: now)
    }

    func closes(_ outputs: [MeetingSignalingOutput]) -> [(SignalingConnectionID, UInt16)] {
        outputs.compactMap { if case .close(let target, let code) = $0 { return (target, code) } else { return nil } }
    }

    @Test func aThirdShareIsRefusedWithStatus409AndClose4409() throws {
        var core = MeetingSignalingCore(meetingId: "m")
        for index in 1...3 { _ = join(&core, index, person(index)) }
        let first = join(&core, 11, share(1))
        let second = join(&core, 12, share(2))
        #expect(video.frames(first, to: 11, .joinAck).count == 1)
        #expect(video.frames(second, to: 12, .joinAck).count == 1)
        #expect(core.presentAttendeeIds.contains("att-1#content") && core.presentAttendeeIds.contains("att-2#content"))

        let third = join(&core, 13, share(3))
        let status = try #require(video.frames(third, to: 13, .audioStatus).first)
        #expect(status.audioStatus.audioStatus == 409)
        #expect(video.frames(third, to: 13, .joinAck).isEmpty)
        let closed = closes(third)
        #expect(closed.count == 1 && closed.first?.0 == connection(13) && closed.first?.1 == 4409)
        // Nobody hears of it, and it is not in the roster.
        #expect(video.frames(third, to: 1, .audioStreamIDInfo).isEmpty)
        #expect(!core.presentAttendeeIds.contains("att-3#content"))
        // Its later frames are ignored.
        var ping = SdkSignalFrame()
        ping.type = .pingPong
        ping.pingPong.type = .ping
        #expect(core.receive(ping, from: connection(13), now: now).isEmpty)

        // When a share leaves, the next one is accepted.
        var leave = SdkSignalFrame()
        leave.type = .leave
        _ = core.receive(leave, from: connection(11), now: now)
        let retry = join(&core, 14, share(3))
        #expect(video.frames(retry, to: 14, .joinAck).count == 1)
        #expect(closes(retry).isEmpty)
    }

    @Test func aSecondShareOfTheSameAttendeeReplacesTheFirst() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.maximumContentShares = 1
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        _ = join(&core, 1, person(1))
        _ = join(&core, 11, share(1), audioSessionId: 7)
        let again = join(&core, 12, share(1), audioSessionId: 8)
        #expect(video.frames(again, to: 12, .joinAck).count == 1)
        let closed = closes(again)
        #expect(closed.count == 1 && closed.first?.0 == connection(11) && closed.first?.1 == SignalingCloseCode.replaced)
        #expect(video.frames(again, to: 11, .audioStatus).first?.audioStatus.audioStatus == 301)
    }

    @Test func contentDoesNotCountTowardTheCameraSenderLimit() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.maximumVideoSenders = 1
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        for index in 1...3 { _ = join(&core, index, person(index)) }
        _ = join(&core, 12, share(2))
        let (camera, _) = video.subscribed(&core, 1, video.subscribe(sending: true))
        #expect(camera?.sending == .allowed)
        // The meeting is at its camera limit, and still takes a share.
        let outputs = core.receive(video.subscribe(sending: true), from: connection(12), now: now)
        guard case .subscribe(_, _, _, let request)? = outputs.first else {
            Issue.record("SUBSCRIBE of the share was not passed to the media side")
            return
        }
        #expect(request.sending == .allowed)
        let answered = core.subscribeAnswered(connection(12), answer: .success(SubscribeAnswer(sdp: "answer", tracks: [])),
                                              now: now)
        let ack = try #require(video.frames(answered, to: 12, .subscribeAck).first)
        #expect(!ack.hasError && ack.suback.allocations.count == 1)
        // Attendee 3 sees both sources, the share as `att-2#content`, and that the cameras are at capacity.
        let index = try #require(video.frames(answered, to: 3, .index).first).index
        #expect(Set(index.sources.map(\.attendeeID)) == ["att-1", "att-2#content"])
        #expect(index.sources.first { $0.attendeeID == "att-2#content" }?.externalUserID == "user-2#content")
        #expect(index.atCapacity)
        // The attendee's own share is listed to the attendee (the client drops it itself).
        let own = try #require(video.frames(answered, to: 2, .index).first).index
        #expect(own.sources.contains { $0.attendeeID == "att-2#content" })
        let (refused, _) = video.subscribed(&core, 3, video.subscribe(sending: true))
        #expect(refused?.sending == .refused)
    }
}
