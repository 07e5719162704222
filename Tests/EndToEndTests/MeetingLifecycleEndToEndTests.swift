import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonServer
import Foundation
import NIOCore
import Testing

/// How meetings end on a real server, and that an ended meeting leaves nothing behind: its room, its media
/// connections and port registrations.
@Suite(.timeLimit(.minutes(2)))
struct MeetingLifecycleEndToEndTests {
    private func join(_ harness: ServerHarness, _ meeting: (response: CreateMeetingResponse, meetingId: String),
                      _ name: String) async throws -> (session: DefaultMeetingSession, probe: SessionProbe) {
        try await MeetingEndToEndTests().join(harness, meeting, name)
    }

    /// Polls `condition` every 20 ms for up to `timeout`: what is checked happens asynchronously on the server.
    private func eventually(_ what: String, timeout: Duration = .seconds(10),
                            _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func exists(_ harness: ServerHarness, _ meetingId: String) async throws -> Bool {
        do {
            _ = try await harness.client.send("GET", "/meetings/\(meetingId)")
            return true
        } catch let error as ControlAPIClientError where error.status == 404 {
            return false
        }
    }

    @Test func deletingAMeetingReleasesItsRoomAndMediaConnections() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let alice = try await join(harness, meeting, "alice")
        let bob = try await join(harness, meeting, "bob")
        #expect(harness.server.rooms.count == 1)
        #expect(try await harness.server.media.port.connectionCount() == 2)

        _ = try await harness.client.send("DELETE", "/meetings/\(meeting.meetingId)")
        for probe in [alice.probe, bob.probe] { try await probe.wait("ended") { $0.stopStatus != nil } }
        #expect(harness.server.rooms.count == 0)
        try await eventually("media connections released") { try await harness.server.media.port.connectionCount() == 0 }
        // The ended meeting stays ended: a socket whose token was good is turned away, and no room comes back.
        #expect(harness.server.rooms.room(for: meeting.meetingId) == nil)
        #expect(harness.server.rooms.count == 0)
    }

    @Test func aMeetingWithoutAudioConnectionsEndsAfterTheIdleTimeout() async throws {
        let policy = MeetingExpiryPolicy(idleTimeout: .milliseconds(1_500), maximumDuration: .hours(1))
        let harness = try await ServerHarness.start(meetingExpiry: policy)
        defer { Task { await harness.stop() } }
        let joined = try await harness.createMeeting()
        let nobody = try await harness.createMeeting()
        let alice = try await join(harness, joined, "alice")

        // Alice stays connected for twice the timeout: her meeting lives on; the empty one has ended meanwhile.
        try await Task.sleep(for: .seconds(3))
        #expect(try await exists(harness, joined.meetingId))
        #expect(alice.probe.snapshot.stopStatus == nil)
        #expect(try await !exists(harness, nobody.meetingId))

        alice.session.audioVideo.stop()
        try await alice.probe.wait("alice stopped") { $0.stopStatus == .ok }
        try await eventually("the meeting ended after alice left") { try await !exists(harness, joined.meetingId) }
        #expect(harness.server.rooms.count == 0)
        try await eventually("media connections released") { try await harness.server.media.port.connectionCount() == 0 }
    }

    @Test func aMeetingEndsAtItsMaximumDurationWithItsSessionsTold() async throws {
        let policy = MeetingExpiryPolicy(idleTimeout: .minutes(5), maximumDuration: .seconds(3))
        let harness = try await ServerHarness.start(meetingExpiry: policy)
        defer { Task { await harness.stop() } }
        let token = UUID().uuidString
        let meeting = try await harness.createMeeting(clientRequestToken: token)
        let store = harness.server.store
        #expect(try await store.idempotentMeeting(accessKeyId: ServerHarness.key.accessKeyId, token: token) != nil)
        let alice = try await join(harness, meeting, "alice")
        try await alice.probe.wait("ended by the server", timeout: .seconds(15)) { $0.stopStatus != nil }
        // The same status as DeleteMeeting (AUDIO_STATUS 410).
        #expect(alice.probe.snapshot.stopStatus == .audioServerHungup)
        #expect(try await !exists(harness, meeting.meetingId))
        #expect(harness.server.rooms.count == 0)
        // Its CreateMeeting idempotency record goes with it: nothing is left for a later sweep to remove.
        try await eventually("idempotency record forgotten") {
            try await store.idempotentMeeting(accessKeyId: ServerHarness.key.accessKeyId, token: token) == nil
        }
    }
}
