import Carillon
import CarillonServer
import Foundation
import Testing

/// `realtimeLocalMute()` right after `start()`, before signaling or media has connected: the session joins muted.
@Suite(.timeLimit(.minutes(2)))
struct JoinMutedEndToEndTests {
    @Test func muteBeforeMediaConnectsJoinsMuted() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "alice"),
                                          logger: ConsoleLogger(name: "alice", level: .OFF))
        let aliceProbe = SessionProbe(name: "alice")
        alice.audioVideo.addAudioVideoObserver(observer: aliceProbe)
        alice.audioVideo.addRealtimeObserver(observer: aliceProbe)
        try alice.audioVideo.start()
        try await aliceProbe.wait("alice joined") { $0.starts == [false] }

        let bob = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "bob"),
                                        logger: ConsoleLogger(name: "bob", level: .OFF))
        let bobProbe = SessionProbe(name: "bob")
        bob.audioVideo.addAudioVideoObserver(observer: bobProbe)
        #expect(bob.audioVideo.realtimeLocalMute() == false)  // not started yet
        try bob.audioVideo.start()
        #expect(bob.audioVideo.realtimeLocalMute())
        // Nothing has connected yet when mute was accepted.
        #expect(bobProbe.snapshot.starts.isEmpty)
        try await bobProbe.wait("bob joined") { $0.starts == [false] }
        try await aliceProbe.wait("bob seen muted") { $0.roster.contains("bob") && $0.muted == ["bob"] }
        // And unmuting works as usual afterwards.
        #expect(bob.audioVideo.realtimeLocalUnmute())
        try await aliceProbe.wait("bob unmuted") { $0.muted.isEmpty }
        bob.audioVideo.stop()
        alice.audioVideo.stop()
        try await bobProbe.wait("bob stopped") { $0.stopStatus == .ok }
        try await aliceProbe.wait("alice stopped") { $0.stopStatus == .ok }
    }
}
