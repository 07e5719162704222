import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonControlClient
import CarillonProtocol
import CarillonServer
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension BenchCommand {
    /// Mouth-to-ear latency through the server's mixer: a speaker's tone bursts, timed where the SDK reads them from
    /// the input, against where they start in the audio the listener's SDK writes to its output.
    struct MouthToEar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mouth-to-ear",
            abstract: "Latency from a speaker's input to a listener's output through the server's mixer, p50 and p99."
        )
        @Option(help: "Tone bursts to time (one every 500 ms).") var probes = 60

        func validate() throws {
            guard (1...10_000).contains(probes) else { throw ValidationError("--probes must be 1...10000") }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            let meeting = try await bench.createMeeting()
            let bursts = BurstSource.Log()
            let onsets = OnsetSink.Log()
            let speaker = try await bench.join(meeting, name: "speaker") { facade in
                let devices = facade.deviceController.virtualDevices
                facade.chooseAudioDevice(mediaDevice: devices.addInput(label: "Bursts") { BurstSource(format: $0, log: bursts) })
            }
            let listener = try await bench.join(meeting, name: "listener") { facade in
                let devices = facade.deviceController.virtualDevices
                facade.chooseAudioDevice(mediaDevice: devices.addOutput(label: "Onsets") { OnsetSink(format: $0, log: onsets) })
            }
            _ = try await speaker.waitUntilStarted()
            _ = try await listener.waitUntilStarted()
            // Warm up (jitter buffers settle, the mixer selects the speaker), then count from a clean slate.
            try await Task.sleep(for: .seconds(2))
            let firstBurst = bursts.times.count
            let firstOnset = onsets.times.count
            let deadline = ContinuousClock.now + .milliseconds(500 * probes + 2000)
            while bursts.times.count - firstBurst < probes + 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .milliseconds(300))
            try await speaker.leave()
            try await listener.leave()

            // Each onset belongs to the latest burst before it (bursts are 500 ms apart; latency is far less).
            let sent = Array(bursts.times.dropFirst(firstBurst))
            var latencies: [Duration] = []
            for onset in onsets.times.dropFirst(firstOnset) {
                guard let burst = sent.last(where: { $0 <= onset }), burst.duration(to: onset) < .milliseconds(450) else { continue }
                latencies.append(burst.duration(to: onset))
            }
            guard latencies.count >= max(1, probes / 2) else {
                throw BenchTimeout(what: "tone bursts at the listener (heard \(latencies.count) of \(probes))")
            }
            StandardOutput.line("mouth-to-ear over \(latencies.count) bursts: \(Percentiles(latencies).summary)")
            let early = Percentiles(Array(latencies.prefix(10))).percentile(0.5)
            let late = Percentiles(Array(latencies.suffix(10))).percentile(0.5)
            StandardOutput.line(String(format: "median of the first 10 %.2f ms, of the last 10 %.2f ms", early.milliseconds, late.milliseconds))
        }
    }

    /// Server CPU per attendee in one audio meeting: `carillon serve` as a child process, N SDK sessions here.
    struct AudioMeeting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audio-meeting",
            abstract: "Server CPU per attendee in one audio meeting with a few talkers (the server runs as a child process)."
        )
        @Option(help: "Attendees in the meeting.") var attendees = 50
        @Option(help: "Attendees sending a tone; the others listen without decoding (capabilities none).") var talkers = 3
        @Option(help: "Seconds to measure, after everyone joined.") var seconds = 20

        func validate() throws {
            guard (1...250).contains(attendees) else { throw ValidationError("--attendees must be 1...250") }
            guard (0...attendees).contains(talkers) else { throw ValidationError("--talkers must be 0...attendees") }
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
        }

        func run() async throws {
            let child = try ChildServer.start()
            defer { child.stop() }
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-audio")
            let counters = MetricsCounter()
            var participants: [BenchParticipant] = []
            for index in 0..<attendees {
                let talker = index < talkers
                let audio = AudioVideoConfiguration(audioDeviceCapabilities: talker ? .inputAndOutput : .none)
                participants.append(try await BenchParticipant.join(client: child.client, meeting: meeting, name: "attendee-\(index)",
                                                                    audio: audio) { facade in
                    if talker {
                        let devices = facade.deviceController.virtualDevices
                        facade.chooseAudioDevice(mediaDevice: try devices.addTone(frequency: 300 + 110 * Double(index)))
                        facade.chooseAudioDevice(mediaDevice: devices.addNullOutput())
                    }
                    facade.addMetricsObserver(observer: counters)
                })
                // Joining in small batches keeps the join storm from timing out on a 2-core machine.
                if index % 10 == 9 { for participant in participants.suffix(10) { _ = try await participant.waitUntilStarted(timeout: .seconds(30)) } }
            }
            for participant in participants { _ = try await participant.waitUntilStarted(timeout: .seconds(30)) }
            try await Task.sleep(for: .seconds(2))

            let wallStart = ContinuousClock.now
            let serverStart = ProcessCPUTime.seconds(pid: child.pid) ?? 0
            let selfStart = ProcessCPUTime.seconds() ?? 0
            let dropsStart = KernelUDPDrops.total()
            counters.reset()
            try await Task.sleep(for: .seconds(seconds))
            let dropsEnd = KernelUDPDrops.total()
            let wall = wallStart.duration(to: .now).seconds
            let server = ((ProcessCPUTime.seconds(pid: child.pid) ?? 0) - serverStart) / wall
            let load = ((ProcessCPUTime.seconds() ?? 0) - selfStart) / wall
            let (reports, lossy, lossyUplink) = counters.snapshot()
            for participant in participants { try? await participant.leave(timeout: .seconds(20)) }

            StandardOutput.line(String(format: "%d attendees, %d talkers, %d s: server %.1f %% of one core in total, %.3f %% per attendee",
                                       attendees, talkers, seconds, server * 100, server * 100 / Double(attendees)))
            StandardOutput.line(String(format: "load generator (this process, %d SDK sessions) %.1f %% of one core", attendees, load * 100))
            // Every session reports receive loss once a second only while the server's 50 packets/s arrive.
            StandardOutput.line(String(format: "flow check: %.1f metrics reports per attendee per second (1.0 expected); %d of them with over 5 %% downlink loss, %d with over 5 %% uplink loss",
                                       Double(reports) / Double(attendees) / Double(seconds), lossy, lossyUplink))
            if let dropsStart, let dropsEnd {
                StandardOutput.line("kernel UDP receive-buffer drops in the window: \(dropsEnd - dropsStart) (every socket on this machine)")
            }
        }
    }

    /// CPU of one SDK session in a call: `carillon join` as a child process, measured from outside. With `--video`
    /// it also sends a 640x360 pattern at 15 fps and receives (decodes) the same from three other attendees.
    struct ClientCPU: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client-cpu",
            abstract: "CPU of one SDK session in a call (a `carillon join` child process sending a tone and playing the mix; --video: also 360p out and three 360p streams in)."
        )
        @Option(help: "Seconds to measure.") var seconds = 30
        @Flag(help: "The measured session also sends 640x360 at 15 fps and receives three such streams (from attendees in this process).")
        var video = false
        @Flag(name: .customLong("voice-focus"), help: "Measure the session with Voice Focus on (`carillon join --voice-focus`).")
        var voiceFocus = false
        @Option(name: .customLong("audio-in"),
                help: "What the measured session says, as `carillon join --audio-in` takes it (a WAV file must last the whole run). Voice Focus suppresses a tone, and Opus codes that silence for less, so use speech to see what Voice Focus adds.")
        var audioIn = "tone:440"

        func validate() throws {
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
        }

        func run() async throws {
            try await EmbeddedServer.with { bench in try await measure(bench) }
        }

        private func measure(_ bench: EmbeddedServer) async throws {
            let meeting = try await bench.createMeeting()
            var peers: [BenchParticipant] = []
            var sources: [PatternVideoSource] = []
            let colors: [VideoTestPattern.Color] = [.green, .blue, .yellow]
            for index in 0..<(video ? 3 : 1) {
                let peer = try await bench.join(meeting, name: "peer-\(index)") { facade in
                    let devices = facade.deviceController.virtualDevices
                    facade.chooseAudioDevice(mediaDevice: try devices.addTone(frequency: 660 + 110 * Double(index)))
                    facade.chooseAudioDevice(mediaDevice: devices.addNullOutput())
                }
                _ = try await peer.waitUntilStarted()
                if video {
                    let source = try PatternVideoSource(color: colors[index], width: 640, height: 360, fps: 15)
                    source.start()
                    peer.session.audioVideo.startLocalVideo(source: source)
                    sources.append(source)
                }
                peers.append(peer)
            }
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
            child.arguments = ["join", "--endpoint", bench.address.endpoint, "--meeting", meeting.meetingId, "--name", "measured",
                               "--audio-in", audioIn, "--audio-out", "/dev/null", "--duration", String(seconds + (video ? 8 : 3))]
                + (video ? ["--video-in", "pattern:red", "--json"] : []) + (voiceFocus ? ["--voice-focus"] : [])
            child.environment = ProcessInfo.processInfo.environment.merging([
                "CARILLON_ACCESS_KEY_ID": bench.accessKey.accessKeyId, "CARILLON_SECRET_ACCESS_KEY": bench.accessKey.secretAccessKey,
            ]) { $1 }
            // Read as it comes, so a full pipe never stalls the measured process.
            let printed = ChildOutput()
            let output = Pipe()
            output.fileHandleForReading.readabilityHandler = { printed.append($0.availableData) }
            child.standardOutput = output
            child.standardError = output
            try child.run()
            defer { if child.isRunning { child.terminate() } }
            // Measure after the join and, with video, once the streams flow (key frames, the encoder's rate settling).
            try await Task.sleep(for: .seconds(video ? 7 : 2))
            let start = ContinuousClock.now
            let cpuStart = ProcessCPUTime.seconds(pid: child.processIdentifier) ?? 0
            try await Task.sleep(for: .seconds(seconds))
            let cpu = ((ProcessCPUTime.seconds(pid: child.processIdentifier) ?? 0) - cpuStart) / start.duration(to: .now).seconds
            child.waitUntilExit()
            output.fileHandleForReading.readabilityHandler = nil
            for source in sources { source.stop() }
            for peer in peers { try await peer.leave() }
            let text = printed.text
            guard child.terminationStatus == 0, text.contains(video ? "\"event\":\"started\"" : "in the meeting") else {
                throw BenchTimeout(what: "the measured session to join and leave cleanly:\n\(text)")
            }
            guard !text.contains("Voice Focus is unavailable") else {
                throw ValidationError("Voice Focus is unavailable in the measured session:\n\(text)")
            }
            let focus = "Voice Focus \(voiceFocus ? "on" : "off")"
            guard video else {
                StandardOutput.line(String(format: "one SDK session in a call (Opus 48 kHz stereo send and receive, 20 ms frames, %@, saying %@): %.2f %% of one core over %d s",
                                           focus, audioIn, cpu * 100, seconds))
                return
            }
            // The last videoStats line of each remote attendee: what the measured session decoded.
            var fps: [String: Double] = [:]
            for line in text.split(separator: "\n") where line.contains("\"videoStats\"") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let attendee = object["attendee"] as? String, let rate = object["fps"] as? Double else { continue }
                fps[attendee] = rate
            }
            guard fps.count == 3 else { throw BenchTimeout(what: "three decoded streams at the measured session (saw \(fps))") }
            StandardOutput.line(String(format: "one SDK session sending 640x360 VP8 at 15 fps and receiving three 640x360 streams (decoding %@), with Opus both ways, %@: %.2f %% of one core over %d s",
                                       fps.keys.sorted().map { String(format: "%@ %.1f fps", $0, fps[$0]!) }.joined(separator: ", "), focus,
                                       cpu * 100, seconds))
        }
    }
}

/// What a child process prints, gathered from its pipe's handler thread.
final class ChildOutput: Sendable {
    private let data = Mutex(Data())
    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
}

/// The speaker's input for the mouth-to-ear benchmark: silence with a 60 ms 1 kHz burst every 500 ms, logging when
/// the SDK read each burst's first frame.
final class BurstSource: AudioInputSource {
    final class Log: Sendable {
        private let instants = Mutex<[ContinuousClock.Instant]>([])
        var times: [ContinuousClock.Instant] { instants.withLock { $0 } }
        func add(_ instant: ContinuousClock.Instant) { instants.withLock { $0.append(instant) } }
    }

    let format: AudioFormat
    private let log: Log
    private var frame = 0

    init(format: AudioFormat, log: Log) {
        self.format = format
        self.log = log
    }

    func read(frameMilliseconds: Int) -> AudioFrame {
        defer { frame += 1 }
        let position = frame % 25
        guard position < 3 else { return .silence(format: format, milliseconds: frameMilliseconds) }
        if position == 0 { log.add(.now) }
        let count = format.sampleRate * frameMilliseconds / 1000
        let offset = position * count
        var samples: [Int16] = []
        samples.reserveCapacity(count * format.channels)
        for index in 0..<count {
            let value = Int16(16_000 * sin(2 * Double.pi * 1000 * Double(offset + index) / Double(format.sampleRate)))
            for _ in 0..<format.channels { samples.append(value) }
        }
        return AudioFrame(format: format, samples: samples)
    }
}

/// The listener's output for the mouth-to-ear benchmark: finds where each burst starts in what the SDK writes, to
/// the sample, and logs that instant (write time plus the sample's offset in the frame).
final class OnsetSink: AudioOutputSink, @unchecked Sendable {
    typealias Log = BurstSource.Log

    let format: AudioFormat
    private let log: Log
    private var quietSamples = Int.max

    init(format: AudioFormat, log: Log) {
        self.format = format
        self.log = log
    }

    func write(_ frame: AudioFrame) {
        let now = ContinuousClock.now
        let channels = max(1, format.channels)
        for index in stride(from: 0, to: frame.samples.count, by: channels) {
            if abs(Int(frame.samples[index])) > 3_000 {
                // A burst starts after at least 100 ms of quiet.
                if quietSamples > format.sampleRate / 10 {
                    log.add(now + .nanoseconds(Int64(index / channels) * 1_000_000_000 / Int64(format.sampleRate)))
                }
                quietSamples = 0
            } else if quietSamples < Int.max {
                quietSamples += 1
            }
        }
    }
}

/// Counts the metrics reports of many sessions: one per second per session means its downlink flows.
final class MetricsCounter: MetricsObserver, Sendable {
    private let counts = Mutex((reports: 0, lossy: 0, lossyUplink: 0))

    func metricsDidReceive(metrics: [AnyHashable: Any]) {
        guard let loss = metrics[AnyHashable(ObservableMetric.audioReceivePacketLossPercent)] as? Double else { return }
        let sendLoss = metrics[AnyHashable(ObservableMetric.audioSendPacketLossPercent)] as? Double ?? 0
        counts.withLock {
            $0.reports += 1
            if loss > 5 { $0.lossy += 1 }
            if sendLoss > 5 { $0.lossyUplink += 1 }
        }
    }

    func reset() { counts.withLock { $0 = (0, 0, 0) } }
    func snapshot() -> (reports: Int, lossy: Int, lossyUplink: Int) { counts.withLock { $0 } }
}

/// `carillon serve` as a child process on free ports of 127.0.0.1, with a throw-away data directory and key.
struct ChildServer {
    let process: Process
    let client: ControlAPIClient
    let directory: URL
    /// Its media address, `host:port`.
    let media: String
    var pid: Int32 { process.processIdentifier }

    /// Starts one with `key` (a cluster's nodes share one; by default a new one).
    static func start(extraArguments: [String] = [], key: AccessKey = .generate()) throws -> ChildServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-bench-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        // CARILLON_BENCH_SERVER_LOG_LEVEL (e.g. debug) lets a failing bench show what the server saw, on stderr.
        let logLevel = ProcessInfo.processInfo.environment["CARILLON_BENCH_SERVER_LOG_LEVEL"] ?? "error"
        process.arguments = ["serve", "--data-dir", directory.path, "--port", "0", "--media-port", "0", "--metrics-port", "0",
                             "--log-level", logLevel] + extraArguments
        process.environment = ProcessInfo.processInfo.environment.merging([
            "CARILLON_ACCESS_KEY_ID": key.accessKeyId, "CARILLON_SECRET_ACCESS_KEY": key.secretAccessKey,
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The server prints "carillon ready endpoint=http://... media=..." once it listens.
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("carillon ready"), Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: #"endpoint=(\S+)"#, options: .regularExpression),
              let endpoint = URL(string: String(text[range].dropFirst("endpoint=".count))),
              let mediaRange = text.range(of: #"media=(\S+)"#, options: .regularExpression) else {
            process.terminate()
            throw BenchTimeout(what: "the child server to start (it printed: \(text))")
        }
        return ChildServer(process: process, client: ControlAPIClient(endpoint: endpoint, accessKeyId: key.accessKeyId,
                                                                      secretAccessKey: key.secretAccessKey),
                           directory: directory, media: String(text[mediaRange].dropFirst("media=".count)))
    }

    /// Ends it at once (`kill -9`), as a crash would.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning {
            process.interrupt()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
