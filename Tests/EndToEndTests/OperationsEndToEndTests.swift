import Carillon
import CarillonServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `/metrics` and `/health` of a real server while SDK sessions are in a meeting: the counters move with the media.
@Suite(.timeLimit(.minutes(2)))
struct OperationsEndToEndTests {
    /// GETs `path` on the operations listener; returns the status and body.
    func get(_ harness: ServerHarness, _ path: String, token: String? = nil) async throws -> (Int, String) {
        let base = try #require(harness.address.operationsEndpoint)
        var request = URLRequest(url: try #require(URL(string: base + path)))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The value of the sample whose name and labels are exactly `series` (e.g. `a_total{direction="in"}`).
    func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1).split(separator: " ").first ?? "")
        }
        return nil
    }

    func session(_ configuration: MeetingSessionConfiguration, _ name: String) throws -> (DefaultMeetingSession, SessionProbe) {
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .OFF))
        let probe = SessionProbe(name: name)
        session.audioVideo.addAudioVideoObserver(observer: probe)
        session.audioVideo.addRealtimeObserver(observer: probe)
        try session.audioVideo.start()
        return (session, probe)
    }

    @Test func metricsMoveDuringAMeetingAndHealthAnswers() async throws {
        let harness = try await ServerHarness.start(operations: OperationsEndpoint(host: "127.0.0.1", port: 0))
        defer { Task { await harness.stop() } }
        #expect(try await get(harness, "/health").0 == 200)
        #expect(try await get(harness, "/health/ready").0 == 200)
        let idle = try await get(harness, "/metrics").1
        #expect(value(idle, #"carillon_media_datagrams_total{direction="in"}"#) == 0)
        #expect(value(idle, "carillon_signaling_sessions") == 0)

        let meeting = try await harness.createMeeting()
        let alice = try session(try await harness.configuration(meeting: meeting, name: "alice"), "alice")
        let bob = try session(try await harness.configuration(meeting: meeting, name: "bob"), "bob")
        try await alice.1.wait("alice joined") { $0.starts == [false] }
        try await bob.1.wait("bob joined") { $0.starts == [false] }

        let first = try await get(harness, "/metrics").1
        #expect(value(first, "carillon_signaling_sessions") == 2)
        #expect(value(first, "carillon_meetings") == 1)
        #expect(value(first, "carillon_meetings_live") == 1)
        #expect(value(first, "carillon_attendees") == 2)
        #expect(value(first, #"carillon_control_api_requests_total{operation="CreateMeeting",status="200"}"#) == 1)
        #expect(value(first, #"carillon_control_api_requests_total{operation="CreateAttendee",status="200"}"#) == 2)
        let inBefore = try #require(value(first, #"carillon_media_datagrams_total{direction="in"}"#))
        let outBefore = try #require(value(first, #"carillon_media_datagrams_total{direction="out"}"#))
        let ticksBefore = try #require(value(first, "carillon_mixer_ticks_total"))
        #expect(inBefore > 0 && outBefore > 0)

        // Audio flows both ways every 20 ms: within a bounded wait, every media counter grows.
        var later = first
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            later = try await get(harness, "/metrics").1
            if let inNow = value(later, #"carillon_media_datagrams_total{direction="in"}"#), inNow >= inBefore + 50,
               let ticks = value(later, "carillon_mixer_ticks_total"), ticks >= ticksBefore + 10 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try #require(value(later, #"carillon_media_datagrams_total{direction="in"}"#)) >= inBefore + 50)
        #expect(try #require(value(later, #"carillon_media_datagrams_total{direction="out"}"#)) > outBefore)
        #expect(try #require(value(later, #"carillon_media_bytes_total{direction="in"}"#)) > 0)
        #expect(try #require(value(later, "carillon_mixer_ticks_total")) >= ticksBefore + 10)
        #expect(try #require(value(later, "carillon_mixer_tick_seconds_total")) > 0)
        #expect(try #require(value(later, "carillon_media_packets_routed_total")) > 0)
        #expect(value(later, #"carillon_media_datagrams_dropped_total{cause="kernel_receive_buffer"}"#) != nil)

        alice.0.audioVideo.stop()
        bob.0.audioVideo.stop()
        try await alice.1.wait("alice stopped") { $0.stopStatus == .ok }
        try await bob.1.wait("bob stopped") { $0.stopStatus == .ok }
    }

    @Test func aTokenGuardsTheOperationsListener() async throws {
        let harness = try await ServerHarness.start(
            operations: OperationsEndpoint(host: "127.0.0.1", port: 0, token: "scrape-secret"))
        defer { Task { await harness.stop() } }
        #expect(try await get(harness, "/metrics").0 == 401)
        #expect(try await get(harness, "/health").0 == 401)
        #expect(try await get(harness, "/metrics", token: "wrong").0 == 401)
        let (status, body) = try await get(harness, "/metrics", token: "scrape-secret")
        #expect(status == 200 && body.contains("carillon_media_datagrams_total"))
    }
}
