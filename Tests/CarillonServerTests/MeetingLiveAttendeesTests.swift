import CarillonProtocol
import NIOCore
import Testing

@testable import CarillonServer

/// What the meeting core reports of each attendee for `carillon meeting get` (``MeetingSignalingCore/liveAttendees()``):
/// presence with its wall-clock `since`, mute, camera and content share, through joins, a reconnect, a drop and a leave.
@Suite struct MeetingLiveAttendeesTests {
    let video = MeetingSignalingVideoTests()
    var start: ClockReading { video.now }

    func at(_ seconds: Int64) -> ClockReading { start.advanced(by: .seconds(seconds)) }
    func since(_ seconds: Int64) -> Int64 { start.unixNanoseconds + seconds * 1_000_000_000 }

    func join(_ core: inout MeetingSignalingCore, _ index: Int, _ identity: AttendeeIdentity, at now: ClockReading) {
        _ = core.accept(video.connection(index), identity: identity, now: now)
        var join = SdkSignalFrame()
        join.type = .join
        join.join.protocolVersion = 2
        join.join.audioSessionID = 7
        _ = core.receive(join, from: video.connection(index), now: now)
    }

    /// The states as `attendeeId presence since-in-seconds flags`, in the core's order.
    func summary(_ core: MeetingSignalingCore) -> [String] {
        core.liveAttendees().map { state in
            let seconds = (state.sinceUnixNanoseconds - start.unixNanoseconds) / 1_000_000_000
            let flags = [state.muted ? "muted" : nil, state.video ? "video" : nil, state.content ? "content" : nil]
            return ([state.attendeeId, state.presence.rawValue, "\(seconds)"] + flags.compactMap { $0 }).joined(separator: " ")
        }
    }

    @Test func presenceMuteVideoAndContentFollowTheMeeting() throws {
        var configuration = MeetingSignalingCore.Configuration()
        configuration.dropGrace = .seconds(5)
        var core = MeetingSignalingCore(meetingId: "m", configuration: configuration)
        let (ana, ben) = (video.people[0], video.people[1])
        #expect(core.liveAttendees().isEmpty)

        join(&core, 1, ana, at: start)
        join(&core, 2, ben, at: at(1))
        var mute = SdkSignalFrame()
        mute.type = .audioControl
        mute.audioControl.muted = true
        _ = core.receive(mute, from: video.connection(1), now: at(2))
        #expect(summary(core) == ["att-1 joined 0 muted", "att-2 joined 1"])

        // A camera, and a content share folded into its owner.
        var publish = video.subscribe(sending: true)
        publish.sub.sdpOffer = "offer"
        let (request, _) = video.subscribed(&core, 2, publish)
        #expect(request?.sending == .allowed)
        join(&core, 12, AttendeeIdentity(attendeeId: "att-2#content", externalUserId: "user-2#content"), at: at(3))
        #expect(summary(core) == ["att-1 joined 0 muted", "att-2 joined 1 video content"])

        // Ben's socket goes: reconnecting since then, his camera gone with it; back within the grace, he keeps his
        // first join time.
        _ = core.disconnected(video.connection(2), now: at(4))
        #expect(summary(core) == ["att-1 joined 0 muted", "att-2 reconnecting 4 content"])
        join(&core, 3, ben, at: at(5))
        #expect(summary(core) == ["att-1 joined 0 muted", "att-2 joined 1 content"])

        // Gone for good after the grace: dropped, since the tick that dropped him; Ana leaves.
        _ = core.disconnected(video.connection(3), now: at(6))
        _ = core.disconnected(video.connection(12), now: at(6))
        _ = core.tick(now: at(11))
        var leave = SdkSignalFrame()
        leave.type = .leave
        _ = core.receive(leave, from: video.connection(1), now: at(12))
        #expect(summary(core) == ["att-1 left 12", "att-2 dropped 11"])

        // Back again: joined anew; a deleted attendee is no longer reported.
        join(&core, 4, ana, at: at(20))
        #expect(summary(core) == ["att-1 joined 20", "att-2 dropped 11"])
        _ = core.removeAttendee("att-2", now: at(21))
        #expect(summary(core) == ["att-1 joined 20"])
    }
}
