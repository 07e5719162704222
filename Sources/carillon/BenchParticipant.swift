import Carillon
import CarillonControlClient
import CarillonProtocol
import Foundation
import Synchronization

/// One SDK session used by the benchmarks: records when it got into the meeting, its "bench" data messages
/// (with arrival times) and when it stopped.
final class BenchParticipant: AudioVideoObserver, DataMessageObserver, Sendable {
    private struct State {
        var startedAfter: Duration?
        var stopped = false
        var received: [(String, ContinuousClock.Instant)] = []
        var throttled = 0
    }

    let session: DefaultMeetingSession
    let name: String
    private let startedAt: ContinuousClock.Instant
    private let state = Mutex(State())

    /// Starts a session with `audio`; `prepare` runs first (to choose devices).
    init(configuration: MeetingSessionConfiguration, name: String, audio: AudioVideoConfiguration = AudioVideoConfiguration(),
         prepare: (DefaultAudioVideoFacade) throws -> Void = { _ in }) throws {
        self.session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .ERROR))
        self.name = name
        self.startedAt = .now
        if let facade = session.audioVideo as? DefaultAudioVideoFacade {
            // Benchmarks never touch the machine's sound cards: silence in, nothing out, unless `prepare` says otherwise.
            let devices = facade.deviceController.virtualDevices
            facade.chooseAudioDevice(mediaDevice: devices.addSilence())
            facade.chooseAudioDevice(mediaDevice: devices.addNullOutput())
            try prepare(facade)
        }
        session.audioVideo.addAudioVideoObserver(observer: self)
        session.audioVideo.addRealtimeDataMessageObserver(topic: "bench", observer: self)
        try session.audioVideo.start(audioVideoConfiguration: audio)
    }

    /// Creates an attendee of `meeting` through the REST API of `client`'s server and starts its session.
    static func join(client: ControlAPIClient, meeting: (response: CreateMeetingResponse, meetingId: String), name: String,
                     audio: AudioVideoConfiguration = AudioVideoConfiguration(),
                     prepare: (DefaultAudioVideoFacade) throws -> Void = { _ in }) async throws -> BenchParticipant {
        let json = try await client.send(
            "POST", "/meetings/\(meeting.meetingId)/attendees",
            body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name])
        )
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: meeting.response,
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: json)
        )
        return try BenchParticipant(configuration: configuration, name: name, audio: audio, prepare: prepare)
    }

    var received: [(String, ContinuousClock.Instant)] { state.withLock { $0.received } }

    /// How many of its own "bench" messages the server returned to it throttled.
    var throttled: Int { state.withLock { $0.throttled } }

    /// Waits until the session is in the meeting; returns how long that took from `start()`.
    func waitUntilStarted(timeout: Duration = .seconds(10)) async throws -> Duration {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let latency = state.withLock({ $0.startedAfter }) { return latency }
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "\(name) to join") }
            try await Task.sleep(for: .microseconds(200))
        }
    }

    /// Stops the session cleanly and waits for its last callback.
    func leave(timeout: Duration = .seconds(10)) async throws {
        session.audioVideo.stop()
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ $0.stopped }) {
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "\(name) to leave") }
            try await Task.sleep(for: .milliseconds(1))
        }
        session.audioVideo.removeAudioVideoObserver(observer: self)
        session.audioVideo.removeRealtimeDataMessageObserverFromTopic(topic: "bench")
    }

    func audioSessionDidStart(reconnecting: Bool) {
        let latency = startedAt.duration(to: .now)
        state.withLock { if $0.startedAfter == nil { $0.startedAfter = latency } }
    }

    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) { state.withLock { $0.stopped = true } }

    func dataMessageDidReceived(dataMessage: DataMessage) {
        let arrival = ContinuousClock.now
        // The server returns a message it throttled to its sender, marked so.
        if dataMessage.throttled {
            state.withLock { $0.throttled += 1 }
            return
        }
        guard let text = dataMessage.text() else { return }
        state.withLock { $0.received.append((text, arrival)) }
    }

    func audioSessionDidStartConnecting(reconnecting: Bool) {}
    func audioSessionDidDrop() {}
    func audioSessionDidCancelReconnect() {}
    func connectionDidRecover() {}
    func connectionDidBecomePoor() {}
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}
}

struct BenchTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
