import Carillon
import CarillonProtocol
import CarillonServer
import Foundation
import Testing

/// A real server on 127.0.0.1 and several SDK sessions talking to it through the real signaling protocol.
@Suite(.timeLimit(.minutes(2)))
struct MeetingEndToEndTests {
    /// Joins `name` to the meeting with a probe attached and waits until the session is in the meeting (signaling
    /// joined and media connected).
    func join(
        _ harness: ServerHarness,
        _ meeting: (response: CreateMeetingResponse, meetingId: String),
        _ name: String,
        topics: [String] = ["chat"]
    ) async throws -> (session: DefaultMeetingSession, probe: SessionProbe) {
        let configuration = try await harness.configuration(meeting: meeting, name: name)
        let joined = try start(configuration, name: name, topics: topics)
        try await joined.probe.wait("\(name) started") { $0.starts == [false] }
        return joined
    }

    func start(
        _ configuration: MeetingSessionConfiguration,
        name: String,
        topics: [String] = ["chat"]
    ) throws -> (session: DefaultMeetingSession, probe: SessionProbe) {
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .OFF))
        let probe = SessionProbe(name: name)
        session.audioVideo.addAudioVideoObserver(observer: probe)
        session.audioVideo.addRealtimeObserver(observer: probe)
        for topic in topics { session.audioVideo.addRealtimeDataMessageObserver(topic: topic, observer: probe) }
        try session.audioVideo.start()
        return (session, probe)
    }

    @Test func attendeesSeeEachOtherJoinMuteAndLeave() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice")
        let bob = try await join(harness, meeting, "bob")
        let carol = try await join(harness, meeting, "carol")
        for probe in [alice.probe, bob.probe, carol.probe] {
            try await probe.wait("full roster") { $0.roster == ["alice", "bob", "carol"] }
            #expect(probe.snapshot.starts == [false])
        }
        // Each join is reported once, however many roster frames mention it.
        let aliceJoins = alice.probe.snapshot.events.filter { $0.hasPrefix("join(") }.joined()
        #expect(aliceJoins.components(separatedBy: "bob").count == 2)

        #expect(bob.session.audioVideo.realtimeLocalMute())
        try await alice.probe.wait("bob muted") { $0.muted == ["bob"] }
        try await carol.probe.wait("bob muted") { $0.muted == ["bob"] }
        #expect(bob.session.audioVideo.realtimeLocalUnmute())
        try await alice.probe.wait("bob unmuted") { $0.muted.isEmpty }

        carol.session.audioVideo.stop()
        try await carol.probe.wait("carol stopped") { $0.stopStatus == .ok }
        try await alice.probe.wait("carol left") { $0.left == ["carol"] && $0.roster == ["alice", "bob"] }
        try await bob.probe.wait("carol left") { $0.left == ["carol"] }
        #expect(alice.probe.snapshot.dropped.isEmpty)
        alice.session.audioVideo.stop()
        bob.session.audioVideo.stop()
        try await alice.probe.wait("stopped") { $0.stopStatus == .ok }
        try await bob.probe.wait("stopped") { $0.stopStatus == .ok }
    }

    @Test func dataMessagesReachOthersAndLateJoinersGetTheBufferedOnes() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice", topics: ["chat", "other"])
        let bob = try await join(harness, meeting, "bob", topics: ["chat"])
        try await alice.probe.wait("bob present") { $0.roster.contains("bob") }
        try await bob.probe.wait("alice present") { $0.roster.contains("alice") }

        try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "kept", lifetimeMs: 60_000)
        try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: ["n": 1], lifetimeMs: 0)
        try alice.session.audioVideo.realtimeSendDataMessage(topic: "other", data: Array("x".utf8), lifetimeMs: 0)
        try await bob.probe.wait("two chat messages") { $0.messages.count == 2 }
        let received = bob.probe.snapshot.messages
        #expect(received.map { $0.text() } == ["kept", "{\"n\":1}"])
        #expect(received.allSatisfy { $0.senderExternalUserId == "alice" && !$0.throttled && $0.timestampMs > 0 })
        #expect(received[0].timestampMs <= received[1].timestampMs)
        // The sender does not get its own accepted messages back; bob is not subscribed to "other".
        try await Task.sleep(for: .milliseconds(200))
        #expect(alice.probe.snapshot.messages.isEmpty)
        #expect(bob.probe.snapshot.messages.count == 2)

        let carol = try await join(harness, meeting, "carol")
        try await carol.probe.wait("replayed message") { $0.messages.count == 1 }
        #expect(carol.probe.snapshot.messages[0].text() == "kept")
        #expect(carol.probe.snapshot.messages[0].senderExternalUserId == "alice")
        for participant in [alice, bob, carol] { participant.session.audioVideo.stop() }
    }

    @Test func floodsAreThrottledAndReturnedToTheSender() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice")
        let bob = try await join(harness, meeting, "bob")
        try await alice.probe.wait("bob present") { $0.roster.contains("bob") }
        for index in 0..<300 {
            try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "m\(index)", lifetimeMs: 0)
        }
        try await alice.probe.wait("throttled receipts") {
            $0.messages.count + bob.probe.snapshot.messages.count == 300
        }
        let throttled = alice.probe.snapshot.messages
        #expect(throttled.allSatisfy { $0.throttled })
        // How many come back depends on how fast the SDK sent the 300 (the bucket refills meanwhile); the exact
        // counts are pinned in virtual time (MeetingSignalingCoreTests).
        #expect(!throttled.isEmpty)
        // Alone, alice's burst is her share of the meeting's throttle and its bucket down to the others' reserve.
        #expect(bob.probe.snapshot.messages.count >= 150)
        #expect(bob.probe.snapshot.messages.allSatisfy { !$0.throttled })
        // Right after her flood, bob's messages still go through: the reserve is his.
        for index in 0..<20 {
            try bob.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "b\(index)", lifetimeMs: 0)
        }
        try await alice.probe.wait("bob's messages") { record in record.messages.filter { !$0.throttled }.count == 20 }
        #expect(bob.probe.snapshot.messages.allSatisfy { !$0.throttled })
        alice.session.audioVideo.stop()
        bob.session.audioVideo.stop()
    }

    @Test func invalidDataMessagesAreTypedErrorsAndTheSessionSurvives() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let configuration = try await harness.configuration(meeting: meeting, name: "alice")
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: "t", level: .OFF))
        #expect(throws: MediaError.illegalState) {
            try session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "too early", lifetimeMs: 0)
        }
        let probe = SessionProbe(name: "alice")
        session.audioVideo.addAudioVideoObserver(observer: probe)
        try session.audioVideo.start()
        try await probe.wait("started") { $0.starts == [false] }
        #expect(throws: SendDataMessageError.invalidTopic) {
            try session.audioVideo.realtimeSendDataMessage(topic: "bad topic", data: "x", lifetimeMs: 0)
        }
        #expect(throws: SendDataMessageError.invalidDataLength) {
            try session.audioVideo.realtimeSendDataMessage(topic: "chat", data: String(repeating: "x", count: 2049), lifetimeMs: 0)
        }
        #expect(throws: SendDataMessageError.negativeLifetimeParameter) {
            try session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "x", lifetimeMs: -1)
        }
        try session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "still fine", lifetimeMs: 0)
        #expect(probe.snapshot.stopStatus == nil)
        session.audioVideo.stop()
        try await probe.wait("stopped") { $0.stopStatus == .ok }
    }

    @Test func forgedAndDeletedCredentialsAreRejected() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let real = try await harness.configuration(meeting: meeting, name: "alice")
        let forged = MeetingSessionConfiguration(
            meetingId: real.meetingId,
            credentials: MeetingSessionCredentials(
                attendeeId: real.credentials.attendeeId,
                externalUserId: "alice",
                joinToken: String(repeating: "0", count: 96)
            ),
            urls: real.urls,
            urlRewriter: URLRewriterUtils.defaultUrlRewriter
        )
        let impostor = try start(forged, name: "impostor")
        try await impostor.probe.wait("rejected") { $0.stopStatus != nil }
        #expect(impostor.probe.snapshot.stopStatus == .audioAuthenticationRejected)
        #expect(impostor.probe.snapshot.starts.isEmpty)

        // A deleted attendee's token no longer works, and its live session is ended.
        let bob = try await join(harness, meeting, "bob")
        try await bob.probe.wait("started") { $0.starts == [false] }
        _ = try await harness.client.send("DELETE", "/meetings/\(meeting.meetingId)/attendees/\(bob.session.configuration.credentials.attendeeId)")
        try await bob.probe.wait("removed") { $0.stopStatus != nil }
        #expect(bob.probe.snapshot.stopStatus == .audioAuthenticationRejected)
        let again = try start(bob.session.configuration, name: "bob-again")
        try await again.probe.wait("rejected") { $0.stopStatus != nil }
        #expect(again.probe.snapshot.stopStatus == .audioAuthenticationRejected)
    }

    @Test func audioMetadataReachesEverySessionFromTheMediaPort() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice")
        let bob = try await join(harness, meeting, "bob")
        // Both capture the default silent microphone: their (DTX) packets arrive intact, and neither is speaking.
        for probe in [alice.probe, bob.probe] {
            try await probe.wait("signal strengths") { $0.signals == ["alice": .high, "bob": .high] }
            #expect(probe.snapshot.volumes == ["alice": .notSpeaking, "bob": .notSpeaking])
        }
        alice.session.audioVideo.stop()
        bob.session.audioVideo.stop()
    }

    @Test func deletingTheMeetingEndsEverySession() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice")
        let bob = try await join(harness, meeting, "bob")
        try await alice.probe.wait("bob present") { $0.roster.contains("bob") }
        _ = try await harness.client.send("DELETE", "/meetings/\(meeting.meetingId)")
        for probe in [alice.probe, bob.probe] {
            try await probe.wait("ended") { $0.stopStatus != nil }
            #expect(probe.snapshot.stopStatus == .audioServerHungup)
        }
        // Joining an ended meeting is refused as "call ended".
        let late = try start(bob.session.configuration, name: "late")
        try await late.probe.wait("refused") { $0.stopStatus != nil }
        #expect([MeetingSessionStatusCode.audioCallEnded, .audioAuthenticationRejected].contains(late.probe.snapshot.stopStatus))
    }

    @Test func sessionsReconnectAfterTheServerRestartsWithTheSameDataDirectory() async throws {
        var signaling = MeetingSignalingCore.Configuration()
        signaling.dropGrace = .seconds(30)
        let first = try await ServerHarness.start(signaling: signaling)
        let meeting = try await first.createMeeting()
        let alice = try await join(first, meeting, "alice")
        let bob = try await join(first, meeting, "bob")
        try await alice.probe.wait("bob present") { $0.roster == ["alice", "bob"] }
        await first.stop()
        try await alice.probe.wait("dropped") { $0.events.contains("drop") }

        let second = try await ServerHarness.start(dataDirectory: first.dataDirectory, port: first.address.port, signaling: signaling)
        defer { Task { await second.stop() } }
        for probe in [alice.probe, bob.probe] {
            try await probe.wait("reconnected", timeout: .seconds(20)) { $0.starts == [false, true] }
            #expect(probe.snapshot.events.contains("connecting(true)"))
        }
        try await alice.probe.wait("roster back") { $0.roster == ["alice", "bob"] }
        try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: "after restart", lifetimeMs: 0)
        try await bob.probe.wait("message after restart") { $0.messages.contains { $0.text() == "after restart" } }
        alice.session.audioVideo.stop()
        bob.session.audioVideo.stop()
        try await alice.probe.wait("stopped") { $0.stopStatus == .ok }
    }

    @Test func joinLeaveCyclesReleaseTheirSessions() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let configuration = try await harness.configuration(meeting: meeting, name: "cycler")
        var released = 0
        for _ in 0..<20 {
            weak var weakSession: DefaultMeetingSession?
            weak var weakProbe: SessionProbe?
            do {
                let (session, probe) = try start(configuration, name: "cycler")
                weakSession = session
                weakProbe = probe
                try await probe.wait("started") { $0.starts == [false] }
                session.audioVideo.stop()
                try await probe.wait("stopped") { $0.stopStatus == .ok }
                session.audioVideo.removeAudioVideoObserver(observer: probe)
                session.audioVideo.removeRealtimeObserver(observer: probe)
                session.audioVideo.removeRealtimeDataMessageObserverFromTopic(topic: "chat")
            }
            // Pending loop tasks and callbacks let go within a moment.
            let deadline = ContinuousClock.now + .seconds(2)
            while weakSession != nil || weakProbe != nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            if weakSession == nil && weakProbe == nil { released += 1 }
        }
        #expect(released == 20)
    }
}
