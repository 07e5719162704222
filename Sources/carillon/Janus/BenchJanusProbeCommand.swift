import ArgumentParser
import CarillonProtocol
import Foundation
import NIOPosix

extension BenchCommand {
    /// The side-by-side bench's bots checked end to end: one bot talks a tone into a Janus AudioBridge room (or, with
    /// `--server carillon`, a Carillon meeting through Chime signaling), another listens, decodes the mix and reports
    /// which of a few candidate frequencies dominates it.
    struct JanusProbe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "janus-probe",
            abstract: "One talker and one listener bot in a Janus AudioBridge room or a Carillon meeting: the listener's decoded mix and its dominant frequency (needs root)."
        )
        @Option(help: "The server the bots join: janus or carillon.") var server = "janus"
        @Option(help: "The talker's tone in Hz (one of 330, 440, 550, 660, 770, 880).") var frequency = 660.0
        @Option(help: "Seconds to listen after both joined.") var seconds = 3
        @Option(help: .hidden) var insideNamespace: String?

        static let candidates: [Double] = [330, 440, 550, 660, 770, 880]

        func validate() throws {
            guard Self.candidates.contains(frequency) else { throw ValidationError("--frequency must be one of \(Self.candidates)") }
            guard (1...60).contains(seconds) else { throw ValidationError("--seconds must be 1...60") }
            guard ["janus", "carillon"].contains(server) else { throw ValidationError("--server must be janus or carillon") }
        }

        func run() async throws {
            guard insideNamespace != nil else {
                try await NamespacedRun.run(arguments: Array(CommandLine.arguments.dropFirst()))
                return
            }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            do {
                if server == "janus" { try await probe(group: group) } else { try await probeCarillon(group: group) }
                try? await group.shutdownGracefully()
            } catch {
                try? await group.shutdownGracefully()
                throw error
            }
        }

        private func probe(group: MultiThreadedEventLoopGroup) async throws {
            let server = try await JanusServer.start(address: BenchNamespace.serverAddress,
                                                     interface: BenchNamespace.serverInterface, eventLoops: 1)
            defer { server.stop() }
            let version = try await server.info()
            let session = try await JanusSession.create(endpoint: server.endpoint)
            let admin = try await session.attach(plugin: JanusAPI.audioBridge)
            _ = try await session.message(handle: admin, body: JanusAPI.createAudioRoom(4242))
            let talker = try await JanusAudioJoin.join(session: session, room: 4242, name: "talker", muted: false, on: group.next())
            let listener = try await JanusAudioJoin.join(session: session, room: 4242, name: "listener", muted: false,
                                                         on: group.next(), decodes: true)
            try await talker.waitUntilConnected()
            try await listener.waitUntilConnected()
            talker.startSending(.talking, audio: try PreEncodedOpus(frequency: frequency), phase: .zero)
            try await Task.sleep(for: .seconds(seconds + 1))
            let packets = listener.receivedPackets
            let dominant = listener.dominantFrequency(of: Self.candidates)
            await talker.close()
            await listener.close()
            await session.close()
            StandardOutput.line("janus \(version): listener received \(packets) packets; dominant frequency \(dominant.map { String(Int($0)) } ?? "none") Hz")
        }

        private func probeCarillon(group: MultiThreadedEventLoopGroup) async throws {
            let child = try ChildServer.start(extraArguments: ["--host", BenchNamespace.serverAddress])
            defer { child.stop() }
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-probe")
            let audio = try PreEncodedOpus(frequency: frequency)
            let talker = try await ChimeBot.join(client: child.client, meeting: meeting, name: "talker",
                                                 role: .init(audio: .talking), audio: audio, on: group.next())
            let listener = try await ChimeBot.join(client: child.client, meeting: meeting, name: "listener",
                                                   role: .init(listens: true), audio: audio, on: group.next())
            try await talker.waitUntilStarted()
            try await listener.waitUntilStarted()
            let before = await listener.counters()?.connection?.rtpPacketsReceived ?? 0
            try await Task.sleep(for: .seconds(seconds + 1))
            let packets = (await listener.counters()?.connection?.rtpPacketsReceived ?? 0) - before
            let dominant = listener.dominantFrequency(of: Self.candidates)
            await talker.leave()
            await listener.leave()
            StandardOutput.line("carillon \(CarillonVersion.current): listener received \(packets) packets; dominant frequency \(dominant.map { String(Int($0)) } ?? "none") Hz")
        }
    }
}
