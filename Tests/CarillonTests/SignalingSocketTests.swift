import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import Carillon

/// The client WebSocket against a TCP server that accepts and never answers the upgrade request, as an overloaded
/// server may: the session's step timeout then closes the socket mid-upgrade.
@Suite(.timeLimit(.minutes(1)))
struct SignalingSocketTests {
    final class EventLog: Sendable {
        private let events = Mutex<[String]>([])
        func append(_ event: SignalingSocket.Event) { events.withLock { $0.append("\(event)") } }
        var all: [String] { events.withLock { $0 } }
    }

    @Test func closingBeforeTheUpgradeClosesTheConnectionQuietly() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let accepted = AsyncStream.makeStream(of: (any Channel).self)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                accepted.continuation.yield(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let loop = group.next()
        let target = try SignalingSocket.Target(url: "ws://127.0.0.1:\(port)/control/m-1")
        let log = EventLog()
        let socket = try await loop.submit {
            SignalingSocket.connect(to: target, joinToken: "token", on: loop) { log.append($0) }
        }.get()
        var connections = accepted.stream.makeAsyncIterator()
        let connection = try #require(await connections.next())
        // Connected, upgrade request sent, no answer: the pipeline still speaks HTTP.
        while try await loop.submit({ socket.localAddress == nil }).get() { try await Task.sleep(for: .milliseconds(5)) }

        // Used to write a WebSocket close frame into the HTTP pipeline, which traps in NIO.
        try await loop.submit { socket.close() }.get()
        try await connection.closeFuture.get()
        #expect(log.all.isEmpty)

        try await server.close()
        try await group.shutdownGracefully()
    }
}
