import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonProtocol
import Foundation
import UnixSignals

/// `carillon demo`: an embedded server, a meeting made through the REST API, and headless attendees using the SDK.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a meeting end to end on this machine: server, REST API, three attendees and a late joiner, each "
            + "speaking a tone and recording what it hears."
    )

    /// The tone each attendee's virtual microphone plays.
    static let tones: [(name: String, hertz: Double)] = [("alice", 440), ("bob", 660), ("carol", 880), ("dave", 550)]

    @Option(help: "Seconds to wait for each step before giving up.")
    var stepTimeout: Double = 10

    @Option(help: "Pause in seconds after each step, so a person can follow.")
    var pace: Double = 0.4

    @Option(help: "Directory for each attendee's recording of what it heard (default: a new temporary directory).")
    var recordings: String?

    @Flag(help: "Instead of the scripted run: a meeting with two talking, camera-showing attendees that you join from a browser on this machine through the invite link printed; runs until Ctrl-C.")
    var browser = false

    @Option(help: "With --browser: the TCP port of the server (0 picks a free one).")
    var port: Int = 0

    func validate() throws {
        guard stepTimeout > 0, pace >= 0 else { throw ValidationError("--step-timeout must be positive and --pace not negative") }
    }

    func run() async throws {
        let started = ContinuousClock.now
        if browser {
            return try await EmbeddedServer.with(port: port) { embedded in try await host(embedded, started: started) }
        }
        try await EmbeddedServer.with { embedded in try await play(embedded, started: started) }
    }

    /// `--browser`: alice and bob talk and show their cameras in a meeting, and a person joins it from a browser through
    /// an invite link, until Ctrl-C.
    private func host(_ embedded: EmbeddedServer, started: ContinuousClock.Instant) async throws {
        let log = DemoLog(start: started, pace: .zero)
        log.say("server", "listening on \(embedded.address.endpoint)")
        let (meeting, meetingId) = try await embedded.createMeeting(externalId: "carillon-demo")
        log.say("api", "CreateMeeting -> \(meetingId)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var bots: [DemoBot] = []
        for index in 0..<2 {
            let (name, tone) = Self.tones[index]
            let color = VideoTestPattern.Color.palette[index]
            log.say("demo", "\(name) speaks a \(Int(tone)) Hz tone and shows a \(color) camera")
            bots.append(try await DemoBot.join(name: name, meeting: meeting, meetingId: meetingId, client: embedded.client,
                                               tone: tone, color: color,
                                               recording: directory.appendingPathComponent("\(name).wav"), log: log))
        }
        let body = try JSONEncoder().encode(ControlAPI.InviteRequest(expiresInSeconds: 12 * 3600))
        let reply = try await embedded.client.send("POST", "/carillon/meetings/\(meetingId)/invites", body: body)
        let invite = try JSONDecoder().decode(ControlAPI.InviteResponse.self, from: reply).invite
        StandardOutput.line("")
        StandardOutput.line("Open this link in Chromium or Firefox on this machine to join alice and bob (your name is filled in; change it if you like):")
        StandardOutput.line("")
        StandardOutput.line("  \(invite.url)?name=guest")
        StandardOutput.line("")
        StandardOutput.line("The browser asks for your camera and microphone; you can join without them. Ctrl-C ends the meeting.")
        let stops = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        for await _ in stops { break }
        for bot in bots { bot.stopCamera() }
        for bot in bots { bot.session.audioVideo.stop() }
        log.say("demo", "meeting over")
        try? FileManager.default.removeItem(at: directory)
    }

    private func play(_ embedded: EmbeddedServer, started: ContinuousClock.Instant) async throws {
        let log = DemoLog(start: started, pace: .milliseconds(Int(pace * 1000)))
        log.say("server", "listening on \(embedded.address.endpoint) (data in \(embedded.dataDirectory.path))")
        let client = embedded.client
        let (meeting, meetingId) = try await embedded.createMeeting(externalId: "carillon-demo")
        log.say("api", "CreateMeeting -> \(meetingId)")

        let timeout = Duration.milliseconds(Int(stepTimeout * 1000))
        let directory = recordings.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("carillon-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func join(_ index: Int) async throws -> DemoBot {
            let (name, tone) = Self.tones[index]
            let color = VideoTestPattern.Color.palette[index]
            log.say("demo", "\(name) speaks a \(Int(tone)) Hz tone and shows a \(color) camera")
            return try await DemoBot.join(name: name, meeting: meeting, meetingId: meetingId, client: client, tone: tone,
                                          color: color, recording: directory.appendingPathComponent("\(name).wav"),
                                          log: log)
        }
        var first: [DemoBot] = []
        for index in 0..<3 { first.append(try await join(index)) }
        let trio = first
        let (alice, bob, carol) = (trio[0], trio[1], trio[2])
        try await log.step("everyone sees everyone", timeout: timeout) {
            trio.allSatisfy { $0.roster.count == 3 }
        }
        try await log.step("everyone hears the other two speaking (volumes from the server's AUDIO_METADATA)", timeout: timeout) {
            trio.allSatisfy { bot in bot.hearsSpeaking(trio.map(\.name).filter { $0 != bot.name }) }
        }
        for bot in trio {
            let volumes = bot.volumes.filter { $0.key != bot.name }.sorted { $0.key < $1.key }
            log.say(bot.name, "volumes: " + volumes.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        try await log.step("everyone ranks alice, bob and carol as active speakers", timeout: timeout) {
            trio.allSatisfy { Set($0.activeSpeakers) == ["alice", "bob", "carol"] }
        }

        _ = bob.session.audioVideo.realtimeLocalMute()
        try await log.step("alice and carol see bob muted, and his volume as muted", timeout: timeout) {
            [alice, carol].allSatisfy { $0.muted.contains("bob") && $0.volumes["bob"] == .muted }
        }
        _ = bob.session.audioVideo.realtimeLocalUnmute()
        try await log.step("bob unmuted again and heard again", timeout: timeout) {
            [alice, carol].allSatisfy { !$0.muted.contains("bob") && $0.hearsSpeaking(["bob"]) }
        }

        let greeting = "hello from alice, kept for five minutes"
        try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: greeting, lifetimeMs: 300_000)
        try carol.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: ["mood": "cheerful"], lifetimeMs: 0)
        try await log.step("bob received both messages", timeout: timeout) { bob.messages.count == 2 }

        let dave = try await join(3)
        let bots = trio + [dave]
        try await log.step("late joiner dave got the buffered message", timeout: timeout) {
            dave.messages.contains { $0.text() == greeting }
        }
        try await log.step("everyone sees dave", timeout: timeout) { bots.allSatisfy { $0.roster.count == 4 } }
        try await log.step("dave hears alice, bob and carol", timeout: timeout) { dave.hearsSpeaking(["alice", "bob", "carol"]) }
        try await log.step("everyone receives the other three cameras", timeout: timeout) {
            bots.allSatisfy { bot in
                let received = bot.videoReceived
                return bots.filter { $0 !== bot }.allSatisfy { (received[$0.name]?.frames ?? 0) > 15 }
            }
        }
        // Two more seconds of the four talking and showing, for the recordings and the frame rates.
        let before = bots.map(\.videoReceived)
        let measured = ContinuousClock.now
        try await Task.sleep(for: .seconds(2))
        let after = bots.map(\.videoReceived)
        let seconds = measured.duration(to: .now).seconds

        for bot in bots { bot.stopCamera() }
        for bot in bots { bot.session.audioVideo.stop() }
        try await log.step("everyone left cleanly", timeout: timeout) {
            bots.allSatisfy { $0.stopStatus?.statusCode == .ok }
        }

        StandardOutput.line("")
        StandardOutput.line("summary")
        StandardOutput.line("  meeting       \(meetingId) (created through the REST API, SigV4-signed)")
        StandardOutput.line("  attendees     \(bots.map(\.name).joined(separator: ", "))")
        for bot in bots {
            let joinMs = bot.joinLatency.map { String(format: "%.1f ms", Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000) } ?? "-"
            StandardOutput.line("  \(bot.name.padding(toLength: 6, withPad: " ", startingAt: 0))        join \(joinMs), \(bot.messages.count) message(s) received, stopped with \(bot.stopStatus.map { "\($0.statusCode)" } ?? "-")")
        }
        StandardOutput.line("  video         each sends a 320x180 pattern at 15 fps in simulcast layers (80x44 and 320x180 from three on); "
            + "what each receives of every camera: frames decoded, the rate over the last \(String(format: "%.1f", seconds)) s, "
            + "the size now (320x180: the full picture):")
        for (index, bot) in bots.enumerated() {
            let received = after[index].sorted { $0.key < $1.key }.map { name, counts in
                let fps = Double(counts.frames - (before[index][name]?.frames ?? 0)) / seconds
                return String(format: "%@ %d frames %.1f fps %dx%d", name, counts.frames, fps, counts.width, counts.height)
            }
            StandardOutput.line("    \(bot.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(received.joined(separator: ", "))")
        }
        StandardOutput.line("  recordings    \(directory.path)")
        for bot in bots {
            StandardOutput.line("    \(bot.recording.lastPathComponent.padding(toLength: 10, withPad: " ", startingAt: 0))\(Self.describe(bot))")
        }
        StandardOutput.line(String(format: "  elapsed       %.2f s", started.duration(to: .now).seconds))
        // What to try next, with this very binary (README, "Run a server and join it").
        let binary = CommandLine.arguments.first ?? "carillon"
        StandardOutput.line("")
        StandardOutput.line("next (README: \"Run a server and join it\")")
        StandardOutput.line("  run a server      \(binary) serve --data-dir ./carillon-data --port 8080")
        StandardOutput.line("  create a meeting  \(binary) meeting create --endpoint http://127.0.0.1:8080 --data-dir ./carillon-data")
        StandardOutput.line("  join it           \(binary) join --endpoint http://127.0.0.1:8080 --data-dir ./carillon-data "
            + "--meeting <MeetingId> --name alice --audio-in tone:440")
    }

    /// Which of the demo's tones a bot's recording holds (within 20 dB of the loudest), and how far below the
    /// loudest its own tone is (the mixer leaves each attendee's own voice out).
    static func describe(_ bot: DemoBot) -> String {
        guard let (format, interleaved) = try? WAVFile.read(contentsOf: bot.recording.path) else { return "unreadable" }
        let samples = AudioFrame(format: format, samples: interleaved).monoDownmix().samples
        let powers = tones.map { ($0.name, $0.hertz, FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: format.sampleRate,
                                                                                    frequency: $0.hertz)) }
        guard let loudest = powers.map(\.2).max(), loudest > 0 else { return "silent" }
        let heard = powers.filter { $0.0 != bot.name && $0.2 >= loudest / 100 }.map { "\($0.0) (\(Int($0.1)) Hz)" }
        let own = FrequencyAnalysis.decibels(max(powers.first { $0.0 == bot.name }?.2 ?? 0, 1e-20) / loudest)
        let seconds = Double(samples.count) / Double(format.sampleRate)
        return String(format: "%.1f s; hears %@; own tone %.0f dB below the loudest", seconds,
                      heard.joined(separator: ", "), -own)
    }
}

/// Time-stamped narration of the demo, plus waiting for conditions with a deadline.
final class DemoLog: Sendable {
    let start: ContinuousClock.Instant
    let pace: Duration

    init(start: ContinuousClock.Instant, pace: Duration) {
        self.start = start
        self.pace = pace
    }

    func say(_ who: String, _ text: String) {
        let elapsed = start.duration(to: .now)
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let padded = who.padding(toLength: 7, withPad: " ", startingAt: 0)
        StandardOutput.line(String(format: "%7.3fs  ", Double(ms) / 1000) + padded + " " + text)
    }

    /// Waits until `condition` holds, polling every 10 ms; throws when `timeout` passes first.
    func step(_ name: String, timeout: Duration, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                say("demo", "FAILED: \(name)")
                throw ExitCode(1)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        say("demo", "ok: \(name)")
        try await Task.sleep(for: pace)
    }
}
