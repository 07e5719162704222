import ArgumentParser
import Carillon
import Foundation
import NIOCore
import NIOPosix
import Synchronization

extension BenchCommand {
    /// The same audio meeting load against Janus's AudioBridge and against `carillon serve`, both run inside a
    /// private network namespace this command creates: server CPU, delivery to the listeners, the load generator's
    /// CPU, per meeting size.
    struct JanusAudio: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "janus-audio",
            abstract: "Side by side with Janus AudioBridge: server CPU and delivery per meeting size (needs root: creates a network namespace)."
        )
        @Option(help: "Meeting sizes, comma-separated.") var attendees = "10,50,100,150,250"
        @Option(help: "Attendees sending a pre-encoded tone; the others listen.") var talkers = 3
        @Option(help: "Seconds to measure per size and server, after everyone joined.") var seconds = 10
        @Option(help: "Servers to measure, comma-separated: janus, carillon.") var servers = "janus,carillon"
        @Option(help: "What listeners send: dtx (a silence packet every 400 ms) or muted (nothing; Janus joins them muted).")
        var listeners = "dtx"
        @Option(help: "Janus general.event_loops (the tuned configuration); without it Janus runs its defaults (one thread per handle).")
        var eventLoops: Int?
        @Option(help: .hidden) var insideNamespace: String?

        func validate() throws {
            guard let sizes = Self.sizes(attendees), sizes.allSatisfy({ (1...250).contains($0) }) else {
                throw ValidationError("--attendees must be comma-separated sizes in 1...250")
            }
            guard sizes.allSatisfy({ (0..<$0).contains(talkers) }) else { throw ValidationError("--talkers must be below every size") }
            guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1...600") }
            guard Set(servers.split(separator: ",").map(String.init)).isSubset(of: ["janus", "carillon"]) else {
                throw ValidationError("--servers must name janus and/or carillon")
            }
            guard ["dtx", "muted"].contains(listeners) else { throw ValidationError("--listeners must be dtx or muted") }
            if let eventLoops, !(1...64).contains(eventLoops) { throw ValidationError("--event-loops must be 1...64") }
        }

        static func sizes(_ text: String) -> [Int]? {
            let sizes = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !sizes.isEmpty, sizes.allSatisfy({ $0 != nil }) else { return nil }
            return sizes.compactMap { $0 }
        }

        func run() async throws {
            if insideNamespace != nil {
                try await measureAll()
            } else {
                try await NamespacedRun.run(arguments: Array(CommandLine.arguments.dropFirst()))
            }
        }

        /// Inside the namespace: every size against every server, one line each, then the side-by-side table.
        private func measureAll() async throws {
            let audio = try PreEncodedOpus(frequency: 440)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            do {
                try await measureAll(audio: audio, group: group)
                try? await group.shutdownGracefully()
            } catch {
                try? await group.shutdownGracefully()
                throw error
            }
        }

        private func measureAll(audio: PreEncodedOpus, group: MultiThreadedEventLoopGroup) async throws {
            let chosen = servers.split(separator: ",").map(String.init)
            var rows: [(Int, AudioLoadResult?, AudioLoadResult?)] = []
            var failures: [String] = []
            // One server failing at a size (a saturated Janus refusing connections) must not cost the other's figure.
            func attempt(_ server: String, size: Int, _ measure: () async throws -> AudioLoadResult) async -> AudioLoadResult? {
                guard chosen.contains(server) else { return nil }
                do {
                    let result = try await measure()
                    StandardOutput.line(result.line(server: server, attendees: size))
                    return result
                } catch {
                    StandardOutput.line("\(server) \(size) attendees: failed: \(error)")
                    failures.append("\(server) at \(size) (\(error))")
                    return nil
                }
            }
            for size in Self.sizes(attendees) ?? [] {
                let janus = await attempt("janus", size: size) { try await measureJanus(size: size, audio: audio, group: group) }
                let carillon = await attempt("carillon", size: size) { try await measureCarillon(size: size, audio: audio, group: group) }
                rows.append((size, janus, carillon))
            }
            StandardOutput.line(AudioLoadResult.table(rows, talkers: talkers, seconds: seconds, listeners: listeners,
                                                      eventLoops: eventLoops))
            if !failures.isEmpty { StandardOutput.line("failed, not in the table: " + failures.joined(separator: "; ")) }
        }

        private func measureJanus(size: Int, audio: PreEncodedOpus, group: MultiThreadedEventLoopGroup) async throws -> AudioLoadResult {
            let server = try await JanusServer.start(address: BenchNamespace.serverAddress, interface: BenchNamespace.serverInterface,
                                                     eventLoops: eventLoops)
            defer { server.stop() }
            let session = try await JanusSession.create(endpoint: server.endpoint)
            let room = UInt64(1000 + size)
            let admin = try await session.attach(plugin: JanusAPI.audioBridge)
            _ = try await session.message(handle: admin, body: JanusAPI.createAudioRoom(room))
            var bots: [WebRTCAudioBot] = []
            do {
                for index in 0..<size {
                    let bot = try await JanusAudioJoin.join(session: session, room: room, name: "attendee-\(index)",
                                                            muted: index >= talkers && listeners == "muted", on: group.next())
                    bots.append(bot)
                    if index % 10 == 9 { for bot in bots.suffix(10) { try await bot.waitUntilConnected() } }
                }
                for bot in bots { try await bot.waitUntilConnected() }
                for (index, bot) in bots.enumerated() {
                    let sending: WebRTCAudioBot.Sending = index < talkers ? .talking : (listeners == "muted" ? .muted : .dtx)
                    bot.startSending(sending, audio: audio, phase: .microseconds(Int64(index * 20_000 / size)))
                }
                let result = try await AudioLoadResult.measure(serverPID: server.pid, seconds: seconds) {
                    bots.dropFirst(talkers).map(\.receivedPackets)
                }
                for bot in bots { await bot.close() }
                await session.close()
                return result
            } catch {
                for bot in bots { await bot.close() }
                await session.close()
                throw error
            }
        }

        private func measureCarillon(size: Int, audio: PreEncodedOpus, group: MultiThreadedEventLoopGroup) async throws -> AudioLoadResult {
            let child = try ChildServer.start(extraArguments: ["--host", BenchNamespace.serverAddress])
            defer { child.stop() }
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-janus-side-by-side")
            var bots: [ChimeBot] = []
            do {
                // The same media as the Janus column's bots, sent by the product's session from the moment it is in.
                for index in 0..<size {
                    let sending: WebRTCAudioBot.Sending = index < talkers ? .talking : (listeners == "muted" ? .muted : .dtx)
                    bots.append(try await ChimeBot.join(client: child.client, meeting: meeting, name: "attendee-\(index)",
                                                        role: .init(audio: sending), audio: audio, on: group.next()))
                    if index % 10 == 9 { for bot in bots.suffix(10) { try await bot.waitUntilStarted() } }
                }
                for bot in bots { try await bot.waitUntilStarted() }
                let listening = Array(bots.dropFirst(talkers))
                let result = try await AudioLoadResult.measure(serverPID: child.pid, seconds: seconds) {
                    var counts: [Int] = []
                    for bot in listening { counts.append(await bot.counters()?.connection?.rtpPacketsReceived ?? 0) }
                    return counts
                }
                // A listener the server did not serve is named, with its session's state: a figure alone hides why.
                for (index, bot) in listening.enumerated() where Double(result.received[index]) < 0.99 * result.expectedPackets {
                    let counters = await bot.counters()?.connection.map {
                        "RTP in \($0.rtpPacketsReceived), RTCP in \($0.rtcpPacketsReceived), RTP out \($0.rtpPacketsSent), RTCP out \($0.rtcpPacketsSent), dropped \($0.datagramsDropped)"
                    } ?? "no connection"
                    StandardOutput.line("carillon \(size) attendees: listener attendee-\(index + talkers) received \(result.received[index]) packets in the window; its session: \(bot.state); its connection: \(counters)")
                }
                for bot in bots { await bot.leave() }
                return result
            } catch {
                for bot in bots { await bot.leave(timeout: .seconds(1)) }
                throw error
            }
        }
    }
}

/// One bot joining a Janus AudioBridge room: a handle, `join` with the offer, the `joined` event's answer, connect.
enum JanusAudioJoin {
    /// Joins `room` on `session` as `name`; returns the bot once its connection is started (not yet connected).
    static func join(session: JanusSession, room: UInt64, name: String, muted: Bool, on loop: any EventLoop,
                     decodes: Bool = false) async throws -> WebRTCAudioBot {
        let bot = try await WebRTCAudioBot(host: BenchNamespace.botAddress, on: loop, decodes: decodes)
        let handle = try await session.attach(plugin: JanusAPI.audioBridge)
        _ = try await session.message(handle: handle, body: JanusAPI.joinAudioRoom(room, display: name, muted: muted), offer: bot.offer)
        let joined = try await session.event(handle: handle) { $0.pluginEvent == "joined" && $0.sdp != nil }
        try bot.connect(answer: joined.sdp ?? "")
        return bot
    }
}
