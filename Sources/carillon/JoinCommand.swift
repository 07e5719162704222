import ArgumentParser
import Carillon
import CarillonProtocol
import Foundation
import UnixSignals

/// `carillon join`: creates an attendee through the REST API and stays in the meeting as a headless attendee.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a meeting as a headless attendee: prints roster and data messages, sends stdin lines."
    )

    @OptionGroup var options: EndpointOptions

    @Option(help: "MeetingId to join.")
    var meeting: String

    @Option(help: "ExternalUserId of the attendee (2-64 characters).")
    var name: String

    @Option(help: "Topic for the data messages sent from stdin and printed.")
    var topic: String = "chat"

    @Option(help: "Lifetime in ms of sent messages (replayed to late joiners while alive).")
    var lifetimeMs: Int32 = 0

    /// What the bot's main loop waits for.
    enum BotEvent: Sendable {
        case leaveRequested
        case stopped(MeetingSessionStatus)
    }

    @Flag(help: "Join muted.")
    var mute = false

    @Option(name: .customLong("audio-in"),
            help: "What the bot says: FILE.wav (played once), tone:HZ, or silence.")
    var audioIn: String = "silence"

    @Option(name: .customLong("audio-out"), help: "Record what the bot hears into this WAV file.")
    var audioOut: String?

    @Flag(help: "Print the audio metrics (send and receive packet loss, %) once a second.")
    var metrics = false

    @Option(help: "Leave after this many seconds.")
    var duration: Double?

    func validate() throws {
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        guard DataMessageTopic.isValid(topic) else { throw ValidationError("--topic must match ^[a-zA-Z0-9_-]{1,36}$") }
        guard lifetimeMs >= 0 else { throw ValidationError("--lifetime-ms must not be negative") }
    }

    func run() async throws {
        let client = try options.client()
        let meetingPath = "/meetings/\(ControlAPIClient.segment(meeting))"
        let meetingJSON = try await client.send("GET", meetingPath)
        let attendeeJSON = try await client.send(
            "POST", "\(meetingPath)/attendees",
            body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name])
        )
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: try JSONDecoder().decode(CreateMeetingResponse.self, from: meetingJSON),
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: attendeeJSON)
        )
        let logger = ConsoleLogger(name: "carillon.join", level: .ERROR)
        let session = DefaultMeetingSession(configuration: configuration, logger: logger)
        if let facade = session.audioVideo as? DefaultAudioVideoFacade {
            let devices = facade.deviceController.virtualDevices
            // A bare path is a WAV file; the other forms are the virtual devices' own specifications.
            let input = audioIn.hasPrefix("tone") || audioIn == "silence" ? audioIn : "wav:\(audioIn)"
            do {
                session.audioVideo.chooseAudioDevice(mediaDevice: try devices.add(specification: input))
            } catch {
                throw ValidationError("--audio-in \(audioIn): \(error)")
            }
            if let audioOut { session.audioVideo.chooseAudioDevice(mediaDevice: devices.addRecorder(path: audioOut)) }
        }
        let events = AsyncStream.makeStream(of: BotEvent.self)
        let mute = self.mute
        let printer = AttendeeEventPrinter(
            prefix: "",
            onStart: { reconnecting in
                if mute && !reconnecting { _ = session.audioVideo.realtimeLocalMute() }
            },
            onStop: { status in events.continuation.yield(.stopped(status)) }
        )
        session.audioVideo.addAudioVideoObserver(observer: printer)
        session.audioVideo.addRealtimeObserver(observer: printer)
        session.audioVideo.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: printer)
        session.audioVideo.addRealtimeDataMessageObserver(topic: topic, observer: printer)
        if metrics { session.audioVideo.addMetricsObserver(observer: printer) }
        StandardOutput.line("joining meeting \(configuration.meetingId) as \(name) (attendee \(configuration.credentials.attendeeId))")
        try session.audioVideo.start()

        let topic = self.topic, lifetimeMs = self.lifetimeMs
        let input = Thread {
            while let line = readLine() {
                guard !line.isEmpty else { continue }
                do {
                    try session.audioVideo.realtimeSendDataMessage(topic: topic, data: line, lifetimeMs: lifetimeMs)
                } catch {
                    StandardOutput.line("could not send: \(error)")
                }
            }
        }
        input.start()
        let timer = Task { [duration] in
            guard let duration else { return }
            try await Task.sleep(for: .milliseconds(Int(duration * 1000)))
            events.continuation.yield(.leaveRequested)
        }
        let signals = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                events.continuation.yield(.leaveRequested)
            }
        }
        defer {
            timer.cancel()
            signals.cancel()
        }

        var status: MeetingSessionStatus?
        var leaving = false
        for await event in events.stream {
            switch event {
            case .leaveRequested:
                // Stop cleanly (LEAVE, LEAVE_ACK) and wait for the session's last callback.
                if !leaving { session.audioVideo.stop() }
                leaving = true
            case .stopped(let final):
                status = final
            }
            if status != nil { break }
        }
        session.audioVideo.removeAudioVideoObserver(observer: printer)
        session.audioVideo.removeRealtimeObserver(observer: printer)
        session.audioVideo.removeActiveSpeakerObserver(observer: printer)
        session.audioVideo.removeMetricsObserver(observer: printer)
        session.audioVideo.removeRealtimeDataMessageObserverFromTopic(topic: topic)
        if let status, status.statusCode != .ok, !leaving {
            throw ExitCode(1)
        }
    }
}
