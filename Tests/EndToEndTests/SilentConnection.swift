import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A bare TCP connection for connection-limit tests: it sends only what it is told to (often nothing) from a chosen
/// loopback source address, and tells when the server closed it.
final class SilentConnection: Sendable {
    private let channel: any Channel
    private let closed: EventLoopFuture<Void>

    private init(channel: any Channel) {
        self.channel = channel
        self.closed = channel.closeFuture
    }

    /// Connects to `host:port` from `source` (any 127.0.0.0/8 address works on Linux loopback).
    static func open(to host: String, port: Int, from source: String = "127.0.0.1") async throws -> SilentConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .connect(host: host, port: port).get()
        return SilentConnection(channel: channel)
    }

    /// Sends `text` as it is.
    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Whether the connection is still open.
    var isOpen: Bool { channel.isActive }

    /// Waits until the server closes the connection; false if it is still open after `timeout`.
    func waitUntilClosed(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while channel.isActive {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Closes it from this side.
    func close() async {
        try? await channel.close().get()
    }
}
