import ArgumentParser
import Carillon
import CarillonProtocol
import Foundation

/// `carillon demo`: an embedded server, a meeting made through the REST API, and headless attendees using the SDK.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a meeting end to end on this machine: server, REST API, three attendees and a late joiner."
    )

    @Option(help: "Seconds to wait for each step before giving up.")
    var stepTimeout: Double = 10

    @Option(help: "Pause in seconds after each step, so a person can follow.")
    var pace: Double = 0.4

    func validate() throws {
        guard stepTimeout > 0, pace >= 0 else { throw ValidationError("--step-timeout must be positive and --pace not negative") }
    }

    func run() async throws {
        let started = ContinuousClock.now
        try await EmbeddedServer.with { embedded in try await play(embedded, started: started) }
    }

    private func play(_ embedded: EmbeddedServer, started: ContinuousClock.Instant) async throws {
        let log = DemoLog(start: started, pace: .milliseconds(Int(pace * 1000)))
        log.say("server", "listening on \(embedded.address.endpoint) (data in \(embedded.dataDirectory.path))")
        let client = embedded.client
        let (meeting, meetingId) = try await embedded.createMeeting(externalId: "carillon-demo")
        log.say("api", "CreateMeeting -> \(meetingId)")

        let timeout = Duration.milliseconds(Int(stepTimeout * 1000))
        var first: [DemoBot] = []
        for name in ["alice", "bob", "carol"] {
            first.append(try await DemoBot.join(name: name, meeting: meeting, meetingId: meetingId, client: client, log: log))
        }
        let trio = first
        let (alice, bob, carol) = (trio[0], trio[1], trio[2])
        try await log.step("everyone sees everyone", timeout: timeout) {
            trio.allSatisfy { $0.roster.count == 3 }
        }

        _ = bob.session.audioVideo.realtimeLocalMute()
        try await log.step("alice and carol see bob muted", timeout: timeout) {
            alice.muted.contains("bob") && carol.muted.contains("bob")
        }
        _ = bob.session.audioVideo.realtimeLocalUnmute()
        try await log.step("bob unmuted again", timeout: timeout) {
            !alice.muted.contains("bob") && !carol.muted.contains("bob")
        }

        let greeting = "hello from alice, kept for five minutes"
        try alice.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: greeting, lifetimeMs: 300_000)
        try carol.session.audioVideo.realtimeSendDataMessage(topic: "chat", data: ["mood": "cheerful"], lifetimeMs: 0)
        try await log.step("bob received both messages", timeout: timeout) { bob.messages.count == 2 }

        let dave = try await DemoBot.join(name: "dave", meeting: meeting, meetingId: meetingId, client: client, log: log)
        let bots = trio + [dave]
        try await log.step("late joiner dave got the buffered message", timeout: timeout) {
            dave.messages.contains { $0.text() == greeting }
        }
        try await log.step("everyone sees dave", timeout: timeout) { bots.allSatisfy { $0.roster.count == 4 } }

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
        StandardOutput.line(String(format: "  elapsed       %.2f s", started.duration(to: .now).seconds))
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
