import ArgumentParser
import CarillonRTC
import Foundation
import NIOPosix

extension BenchCommand {
    /// The bench's Janus video client checked end to end: one bot publishes the pre-encoded 360p loop into a Janus
    /// VideoRoom, another subscribes to it and counts the frames and packets it receives against what was sent.
    struct JanusVideoProbe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "janus-video-probe",
            abstract: "One publisher and one subscriber bot in a Janus VideoRoom: frames and packets received against sent (needs root)."
        )
        @Option(help: "Seconds to count after the subscriber connected.") var seconds = 3
        @Option(help: .hidden) var insideNamespace: String?

        func validate() throws {
            guard (1...60).contains(seconds) else { throw ValidationError("--seconds must be 1...60") }
        }

        func run() async throws {
            guard insideNamespace != nil else {
                try await NamespacedRun.run(arguments: Array(CommandLine.arguments.dropFirst()))
                return
            }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            do {
                try await probe(group: group)
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
            // Counted from the first frame on: before it, Janus may still be waiting for the key frame it asked for.
            let deadline = ContinuousClock.now + .seconds(10)
            while subscriber.receivedBySSRC.values.allSatisfy({ $0.frames == 0 }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let sentBefore = (publisher.framesSentCount, publisher.packetsSent)
            let receivedBefore = Self.totals(subscriber.receivedBySSRC)
            try await Task.sleep(for: .seconds(seconds))
            let sent = (publisher.framesSentCount - sentBefore.0, publisher.packetsSent - sentBefore.1)
            let received = subscriber.receivedBySSRC
            await publisher.close()
            await subscriber.close()
            await session.close()
            let totals = Self.totals(received)
            StandardOutput.line("janus \(version): subscriber received \(totals.frames - receivedBefore.frames) frames (\(totals.packets - receivedBefore.packets) packets) on \(received.count) streams; publisher sent \(sent.0) frames (\(sent.1) packets) meanwhile")
        }

        private static func totals(_ received: [UInt32: WebRTCVideoBot.Received]) -> (frames: Int, packets: Int) {
            (received.values.reduce(0) { $0 + $1.frames }, received.values.reduce(0) { $0 + $1.packets })
        }
    }
}
