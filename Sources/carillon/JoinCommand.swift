import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonControlClient
import CarillonProtocol
import Foundation
import Synchronization
import UnixSignals

/// `carillon join`: creates an attendee through the REST API and stays in the meeting as a headless attendee.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a meeting as a headless attendee: prints roster and data messages, sends stdin lines, sends and records audio and video."
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

    @Option(name: .customLong("audio-out"),
            help: "Record what the bot hears into this WAV file (one file across reconnects, the time away as silence; valid even if the bot is killed).")
    var audioOut: String?

    @Option(help: "Seconds the bot keeps reconnecting while the server is away before it gives up and exits (Chime's default: 180).")
    var reconnectTimeout: Double = 180

    @Flag(name: .customLong("voice-focus"),
          help: "Turn Voice Focus on once in the meeting: RNNoise removes fans, typing and other noise from what the bot sends.")
    var voiceFocus = false

    @Flag(help: "Print the audio metrics (send and receive packet loss, %) once a second.")
    var metrics = false

    @Option(name: .customLong("video-in"),
            help: "Send video: pattern[:COLOR] (a moving 640x360 pattern at 15 fps with a frame counter; COLOR is one of red, green, blue, yellow, magenta, cyan, orange, purple), FILE.y4m (4:2:0, looped), or camera[:NAME] (the first camera, or the one whose label contains NAME, e.g. camera:/dev/video0; the closest format to --video-size at 15 fps).")
    var videoIn: String?

    @Option(name: .customLong("video-size"), help: "Size of the --video-in pattern or camera, WIDTHxHEIGHT.")
    var videoSize: String = "640x360"

    @Option(name: .customLong("video-out"),
            help: "Receive video and write each remote tile's frames to DIR/<ExternalUserId>.y4m; each size change or new tile of the attendee continues in -2, -3, ... (existing files are never overwritten).")
    var videoOut: String?

    @Option(name: .customLong("share"), help: ArgumentHelp(stringLiteral: ContentShareOption.help))
    var share: String?

    @Option(name: .customLong("subscribe"), help: ArgumentHelp(stringLiteral: VideoSubscriptionOption.help))
    var subscribe: [String] = []

    @Flag(help: "Print every event as one JSON object per line (and videoStats once a second per remote tile).")
    var json = false

    @Option(help: "Leave after this many seconds.")
    var duration: Double?

    func validate() throws {
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        guard reconnectTimeout >= 1, reconnectTimeout <= 86_400 else {
            throw ValidationError("--reconnect-timeout must be 1...86400 seconds")
        }
        guard Self.size(videoSize) != nil else { throw ValidationError("--video-size must be WIDTHxHEIGHT, e.g. 320x180") }
        if let videoIn { _ = try Self.videoSource(videoIn, name: name, size: (640, 360), check: true) }
        if let share { _ = try ContentShareOption.source(share, name: name, check: true) }
        if let videoOut {
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: videoOut, isDirectory: &directory), directory.boolValue else {
                throw ValidationError("--video-out \(videoOut) is not a directory")
            }
        }
        guard DataMessageTopic.isValid(topic) else { throw ValidationError("--topic must match ^[a-zA-Z0-9_-]{1,36}$") }
        guard lifetimeMs >= 0 else { throw ValidationError("--lifetime-ms must not be negative") }
        _ = try VideoSubscriptionOption.parse(subscribe)
    }

    /// The source `--video-in` names; with `check`, only validates (nothing is opened for long).
    /// `WIDTHxHEIGHT` as numbers.
    static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (16...4096).contains($0) }) else { return nil }
        return (parts[0], parts[1])
    }

    static func videoSource(_ specification: String, name: String, size: (width: Int, height: Int),
                            check: Bool = false) throws -> (any VideoCaptureSource)? {
        if specification == "pattern" || specification.hasPrefix("pattern:") {
            let palette = VideoTestPattern.Color.palette
            let color: VideoTestPattern.Color
            if let requested = specification.split(separator: ":", maxSplits: 1).dropFirst().first {
                guard let named = palette.first(where: { $0.name == requested.lowercased() }) else {
                    throw ValidationError("--video-in \(specification): unknown colour; use one of "
                                          + palette.map(\.name).joined(separator: ", "))
                }
                color = named
            } else {
                // Each bot its own colour, the same on every run.
                color = palette[name.utf8.reduce(0) { $0 + Int($1) } % palette.count]
            }
            return check ? nil : try PatternVideoSource(color: color, width: size.width, height: size.height)
        }
        if specification == "camera" || specification.hasPrefix("camera:") {
            return try cameraSource(specification, size: size, check: check)
        }
        guard specification.hasSuffix(".y4m") else {
            throw ValidationError("--video-in \(specification): use pattern[:COLOR], a .y4m file or camera[:NAME]")
        }
        do {
            let source = try Y4MFileVideoSource(path: specification)
            return check ? nil : source
        } catch {
            throw ValidationError("--video-in \(specification): \(error)")
        }
    }

    /// The SDK's camera capture on the camera `camera[:NAME]` names: `camera` is the machine's first camera (V4L2),
    /// never a virtual one; `camera:NAME` the first camera, machine or virtual, whose label contains NAME
    /// (case-insensitive; V4L2 labels end with their `/dev/video<N>` path). No camera, or an unknown NAME, is an error
    /// that lists the machine's cameras apart from the virtual ones.
    static func cameraSource(_ specification: String, size: (width: Int, height: Int),
                             check: Bool) throws -> (any VideoCaptureSource)? {
        let cameras = MediaDevice.listVideoDevices()
        let name = specification.split(separator: ":", maxSplits: 1).dropFirst().first.map(String.init)
        let device: MediaDevice?
        if let name {
            device = cameras.first { $0.label.localizedCaseInsensitiveContains(name) }
        } else {
            device = cameras.first { !$0.isVirtualCamera }
        }
        guard let device else {
            throw ValidationError("--video-in \(specification): " + cameraListing(cameras, named: name))
        }
        guard !check else { return nil }
        let camera = DefaultCameraCaptureSource(logger: ConsoleLogger(name: "carillon.camera", level: .ERROR))
        camera.device = device
        camera.format = VideoCaptureFormat(width: size.width, height: size.height, maxFrameRate: 15)
        return camera
    }

    /// Why no camera was found, with the machine's cameras and the virtual ones listed apart.
    static func cameraListing(_ cameras: [MediaDevice], named name: String?) -> String {
        let real = cameras.filter { !$0.isVirtualCamera }.map(\.label)
        let virtual = cameras.filter(\.isVirtualCamera).map(\.label)
        var text = name.map { "no camera's label contains \"\($0)\"; " } ?? ""
        text += real.isEmpty ? "this machine has no camera (no V4L2 device such as /dev/video0)"
            : "the cameras are: " + real.joined(separator: "; ")
        if !virtual.isEmpty {
            text += ". Virtual cameras (camera:NAME picks one): " + virtual.joined(separator: "; ")
        }
        if real.isEmpty { text += ". For a test picture use --video-in pattern" }
        return text
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
        let mute = self.mute, voiceFocus = self.voiceFocus
        // Attendee id to ExternalUserId, from the roster, for naming tiles and their files.
        let names = Mutex<[String: String]>([:])
        let subscriptionFacade = session.audioVideo as? DefaultAudioVideoFacade
        let subscriber = RemoteVideoSubscriber(options: try VideoSubscriptionOption.parse(subscribe)) { added in
            subscriptionFacade?.updateVideoSourceSubscriptions(addedOrUpdated: added, removed: [])
        }
        let subscribing = !subscribe.isEmpty
        let printer = AttendeeEventPrinter(
            prefix: "",
            json: json,
            reconnectTimeoutSeconds: Int(reconnectTimeout.rounded()),
            onStart: { reconnecting in
                if mute && !reconnecting { _ = session.audioVideo.realtimeLocalMute() }
                // The SDK logs why when it refuses (no RNNoise library).
                if voiceFocus && !reconnecting && !session.audioVideo.realtimeSetVoiceFocusEnabled(enabled: true) {
                    StandardOutput.line("Voice Focus is unavailable")
                }
            },
            onStop: { status in events.continuation.yield(.stopped(status)) },
            onRoster: { change in
                guard case .joined(let attendees) = change else { return }
                names.withLock { names in for attendee in attendees { names[attendee.attendeeId] = attendee.externalUserId } }
                if subscribing { subscriber.attendeesJoined(attendees.map { ($0.attendeeId, $0.externalUserId) }) }
            },
            onVideoSources: { available, unavailable in
                guard subscribing else { return }
                if !unavailable.isEmpty { subscriber.sourcesUnavailable(unavailable) }
                if !available.isEmpty { subscriber.sourcesAvailable(available) }
            }
        )
        session.audioVideo.addAudioVideoObserver(observer: printer)
        session.audioVideo.addRealtimeObserver(observer: printer)
        session.audioVideo.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: printer)
        session.audioVideo.addRealtimeDataMessageObserver(topic: topic, observer: printer)
        if metrics { session.audioVideo.addMetricsObserver(observer: printer) }
        let line = EventLine(json: json) { StandardOutput.line($0) }
        var recorder: TileRecorder?
        if videoOut != nil || json || subscribing, let facade = session.audioVideo as? DefaultAudioVideoFacade {
            let tiles = TileRecorder(facade: facade, directory: videoOut, line: line) { id in
                names.withLock { $0[id] } ?? id
            }
            session.audioVideo.addVideoTileObserver(observer: tiles)
            recorder = tiles
        }
        line.emit("joining", ["meeting": configuration.meetingId, "name": name,
                              "attendee": configuration.credentials.attendeeId],
                  text: "joining meeting \(configuration.meetingId) as \(name) (attendee \(configuration.credentials.attendeeId))")
        try session.audioVideo.start(audioVideoConfiguration: AudioVideoConfiguration(
            reconnectTimeoutMs: Int(reconnectTimeout * 1000)))
        var camera: (any VideoCaptureSource)?
        if let videoIn {
            camera = try Self.videoSource(videoIn, name: name, size: Self.size(videoSize) ?? (640, 360))
            if let camera {
                session.audioVideo.startLocalVideo(source: camera)
                camera.start()
            }
        }
        if recorder != nil { session.audioVideo.startRemoteVideo() }
        var shared: (any VideoCaptureSource)?
        let sharePrinter = ContentSharePrinter(line: line)
        if let share, let source = try ContentShareOption.source(share, name: name) {
            session.audioVideo.addContentShareObserver(observer: sharePrinter)
            session.audioVideo.startContentShare(source: ContentShareSource(videoSource: source))
            source.start()
            shared = source
        }
        let statistics = Task { [recorder, json] in
            guard json, let recorder, let facade = session.audioVideo as? DefaultAudioVideoFacade else { return }
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                recorder.report(statistics: facade.remoteVideoStatistics(), seconds: 1)
            }
        }

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
            statistics.cancel()
        }

        var status: MeetingSessionStatus?
        var leaving = false
        for await event in events.stream {
            switch event {
            case .leaveRequested:
                // Stop cleanly (LEAVE, LEAVE_ACK) and wait for the session's last callback.
                if !leaving {
                    if shared != nil { session.audioVideo.stopContentShare() }
                    session.audioVideo.stop()
                }
                leaving = true
            case .stopped(let final):
                status = final
            }
            if status != nil { break }
        }
        camera?.stop()
        shared?.stop()
        session.audioVideo.removeContentShareObserver(observer: sharePrinter)
        if let recorder {
            session.audioVideo.removeVideoTileObserver(observer: recorder)
            recorder.close()
            if !json {
                for (attendee, counts) in recorder.framesByAttendee.sorted(by: { $0.key < $1.key }) {
                    StandardOutput.line("video from \(attendee): \(counts.frames) frames, last \(counts.width)x\(counts.height)")
                }
            }
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
