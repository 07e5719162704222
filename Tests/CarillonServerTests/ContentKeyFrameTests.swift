import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

/// A content share's uplink is asked for a key frame every 10 s (JOIN may turn it off); a camera's only on demand.
@Suite struct ContentKeyFrameTests {
    let router = MeetingVideoRouterTests()

    /// The times, from the start, of the PLIs a lone publisher gets over 25 s of ticks every 100 ms.
    func requestTimes(keyFrameInterval: TimeAmount?) throws -> [TimeAmount] {
        let start = router.start
        let core = MeetingMediaCore(now: start)
        let negotiation = try MeetingMediaNegotiation(
            offer: VideoOffer.make(receiveMids: []), certificate: router.certificate, candidate: router.candidate,
            video: .init(sending: .allowed, receive: [nil], keyFrameInterval: keyFrameInterval))
        _ = core.add(router.publisher, attendeeId: "pub#content", negotiation: negotiation, now: start)
        _ = core.connected(router.publisher, muted: false, now: start)
        var camera = MeetingVideoRouterTests.Camera()
        var times: [TimeAmount] = []
        for step in 1...250 {
            let now = start + .milliseconds(Int64(step) * 100)
            var outputs: [MeetingMediaOutput] = []
            // A frame a second keeps the uplink alive (a screen that rarely changes).
            if step % 10 == 5 {
                for packet in camera.frame(key: step == 5) { outputs += core.receive(packet, from: router.publisher, now: now) }
            }
            outputs += core.tick(now: now)
            for _ in 0..<router.pictureLossRequests(outputs) { times.append(now - start) }
        }
        return times
    }

    @Test func aContentShareIsAskedForAKeyFrameEveryTenSeconds() throws {
        let times = try requestTimes(keyFrameInterval: .seconds(10))
        #expect(times.count == 2)
        if times.count == 2 {
            #expect(times[0] >= .seconds(10) && times[0] <= .seconds(12))
            #expect(times[1] - times[0] >= .seconds(10) && times[1] - times[0] <= .seconds(11))
        }
        #expect(try requestTimes(keyFrameInterval: nil).isEmpty)
    }

    @Test func theSignalingCoreAsksForPeriodicKeyFramesOnlyForContentWithoutTheJoinFlag() {
        let now = ClockReading(monotonic: .uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
        var core = MeetingSignalingCore(meetingId: "m")
        let cases: [(AttendeeIdentity, Bool, TimeAmount?)] = [
            (AttendeeIdentity(attendeeId: "a", externalUserId: "a"), false, nil),
            (AttendeeIdentity(attendeeId: "a#content", externalUserId: "a#content"), false, .seconds(10)),
            (AttendeeIdentity(attendeeId: "b#content", externalUserId: "b#content"), true, nil),
        ]
        for (index, (identity, disabled, expected)) in cases.enumerated() {
            let connection = SignalingConnectionID(UInt64(index + 1))
            _ = core.accept(connection, identity: identity, now: now)
            var join = SdkSignalFrame()
            join.type = .join
            join.join.protocolVersion = 2
            join.join.disablePeriodicKeyframeRequestOnContentSender = disabled
            _ = core.receive(join, from: connection, now: now)
            let outputs = core.receive(MeetingSignalingVideoTests().subscribe(sending: true), from: connection, now: now)
            guard case .subscribe(_, _, _, let video)? = outputs.first else {
                Issue.record("no SUBSCRIBE for \(identity.attendeeId)")
                continue
            }
            #expect(video.keyFrameInterval == expected, "\(identity.attendeeId)")
        }
    }
}
