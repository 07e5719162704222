import ArgumentParser
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOPosix

extension BenchCommand {
    /// The side-by-side bench's video bots checked end to end: one bot publishes the pre-encoded 360p loop into a
    /// Janus VideoRoom (or, with `--server carillon`, a Carillon meeting through Chime signaling), another subscribes
    /// to it and counts the frames and packets it receives against what was sent.
    struct JanusVideoProbe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "janus-video-probe",
            abstract: "One publisher and one subscriber bot in a Janus VideoRoom or a Carillon meeting: frames and packets received against sent (needs root)."
        )
        @Option(help: "The server the bots join: janus or carillon.") var server = "janus"
        @Option(help: "Seconds to count after the subscriber connected.") var seconds = 3
        @Option(help: .hidden) var insideNamespace: String?

        func validate() throws {
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
            let video = try PreEncodedVP8(frames: 30)
            let session = try await JanusSession.create(endpoint: server.endpoint)
            let admin = try await session.attach(plugin: JanusAPI.videoRoom)
            _ = try await session.message(handle: admin, body: JanusAPI.createVideoRoom(4343, publishers: 1))
            let (publisher, feed) = try await JanusVideoJoin.publish(session: session, room: 4343, name: "publisher", on: group.next())
            try await publisher.waitUntilConnected()
            publisher.startSending(video, payloadType: VideoSessionDescription.offeredPayloadType, phase: .zero)
            let subscriber = try await JanusVideoJoin.subscribe(session: session, room: 4343, feeds: [feed], on: group.next())
            try await subscriber.waitUntilConnected()
            let line = try await Self.count(publisher: publisher, subscriber: subscriber, seconds: seconds)
            await publisher.close()
            await subscriber.close()
            await session.close()
            StandardOutput.line("janus \(version): " + line)
        }

        private func probeCarillon(group: MultiThreadedEventLoopGroup) async throws {
            let child = try ChildServer.start(extraArguments: ["--host", BenchNamespace.serverAddress])
            defer { child.stop() }
            let meeting = try await EmbeddedServer.createMeeting(client: child.client, externalId: "bench-video-probe")
            let video = try PreEncodedVP8(frames: 30)
            let audio = try PreEncodedOpus(frequency: 440)
            let publisher = try await ChimeBot.join(client: child.client, meeting: meeting, name: "publisher",
                                                    role: .init(sendsVideoKbps: UInt32(video.bitrate / 1_000)), audio: audio,
                                                    on: group.next())
            try await publisher.waitUntilStarted()
            publisher.startSendingVideo(video, phase: .zero)
            let subscriber = try await ChimeBot.join(client: child.client, meeting: meeting, name: "subscriber",
                                                     role: .init(receivesVideo: true), audio: audio, on: group.next())
            try await subscriber.waitUntilStarted()
            let line = try await Self.count(publisher: publisher, subscriber: subscriber, seconds: seconds)
            await publisher.leave()
            await subscriber.leave()
            StandardOutput.line("carillon \(CarillonVersion.current): " + line)
        }

        /// Waits for the subscriber's first frame, then counts for `seconds`: what it received against what was sent.
        private static func count(publisher: any VideoBenchPeer, subscriber: any VideoBenchPeer, seconds: Int) async throws -> String {
            // Counted from the first frame on: before it, the server may still be waiting for the key frame it asked for.
            let deadline = ContinuousClock.now + .seconds(10)
            while await subscriber.receivedStreams().values.allSatisfy({ $0.frames == 0 }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let sentBefore = await publisher.sentCounts()
            let receivedBefore = Self.totals(await subscriber.receivedStreams())
            try await Task.sleep(for: .seconds(seconds))
            let sentAfter = await publisher.sentCounts()
            let received = await subscriber.receivedStreams()
            let totals = Self.totals(received)
            return "subscriber received \(totals.frames - receivedBefore.frames) frames (\(totals.packets - receivedBefore.packets) packets) on \(received.count) streams; publisher sent \(sentAfter.frames - sentBefore.frames) frames (\(sentAfter.packets - sentBefore.packets) packets) meanwhile"
        }

        private static func totals(_ received: [Int: ReceivedVideoCounts]) -> (frames: Int, packets: Int) {
            (received.values.reduce(0) { $0 + $1.frames }, received.values.reduce(0) { $0 + $1.packets })
        }
    }
}
