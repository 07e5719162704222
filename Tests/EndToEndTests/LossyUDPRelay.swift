import NIOCore
import NIOPosix

/// A UDP relay in front of the server's media port that drops a share of the datagrams in each direction: a lossy
/// NAT on 127.0.0.1. Each client address gets its own upstream socket, so the server sees one address per client,
/// as behind a real NAT.
///
/// Threading: everything runs on one event loop; the relay's state is touched only there.
final class LossyUDPRelay: @unchecked Sendable {
    /// The port clients send to.
    let port: Int
    private let eventLoop: any EventLoop
    private let front: any Channel
    private let lossRate: Double
    private var target: SocketAddress?
    private var upstreams: [SocketAddress: EventLoopFuture<any Channel>] = [:]
    private var random: UInt64
    private(set) var forwarded = 0
    private(set) var dropped = 0

    private init(front: any Channel, lossRate: Double, seed: UInt64) {
        self.front = front
        eventLoop = front.eventLoop
        port = front.localAddress?.port ?? 0
        self.lossRate = lossRate
        random = seed
    }

    /// Binds the relay on 127.0.0.1; nothing is forwarded until ``forward(to:)``.
    static func start(lossRate: Double, seed: UInt64 = 0x5EED) async throws -> LossyUDPRelay {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let relay = try await eventLoop.submit { () -> EventLoopFuture<LossyUDPRelay> in
            let promise = eventLoop.makePromise(of: LossyUDPRelay.self)
            let box = Box()
            DatagramBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.pipeline.addHandler(Inbound { envelope in box.relay?.fromClient(envelope) })
                }
                .bind(host: "127.0.0.1", port: 0)
                .map { channel -> LossyUDPRelay in
                    let relay = LossyUDPRelay(front: channel, lossRate: lossRate, seed: seed)
                    box.relay = relay
                    return relay
                }
                .cascade(to: promise)
            return promise.futureResult
        }.flatMap { $0 }.get()
        return relay
    }

    /// Sends what clients send to `address` (the server's real media port).
    func forward(to address: SocketAddress) async throws {
        try await eventLoop.submit { self.target = address }.get()
    }

    /// Datagrams forwarded and dropped so far, both directions.
    func counts() async throws -> (forwarded: Int, dropped: Int) {
        try await eventLoop.submit { (self.forwarded, self.dropped) }.get()
    }

    func close() async {
        let channels = try? await eventLoop.submit { () -> [EventLoopFuture<any Channel>] in Array(self.upstreams.values) }.get()
        for future in channels ?? [] { try? await future.get().close() }
        try? await front.close()
    }

    private func fromClient(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard let target, !drop() else { return }
        let client = envelope.remoteAddress
        let upstream = upstreams[client] ?? {
            let made = DatagramBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.pipeline.addHandler(Inbound { [weak self] reply in self?.fromServer(reply, to: client) })
                }
                .bind(host: "127.0.0.1", port: 0)
            upstreams[client] = made
            return made
        }()
        let data = envelope.data
        upstream.whenSuccess { channel in
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: data), promise: nil)
        }
    }

    private func fromServer(_ envelope: AddressedEnvelope<ByteBuffer>, to client: SocketAddress) {
        guard !drop() else { return }
        front.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: envelope.data), promise: nil)
    }

    /// Bernoulli loss from a seeded SplitMix64, so a run is repeatable in its pattern.
    private func drop() -> Bool {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let lost = Double(z >> 11) / Double(1 << 53) < lossRate
        if lost { dropped += 1 } else { forwarded += 1 }
        return lost
    }

    private final class Box: @unchecked Sendable {
        var relay: LossyUDPRelay?
    }

    private final class Inbound: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let onRead: (AddressedEnvelope<ByteBuffer>) -> Void
        init(_ onRead: @escaping (AddressedEnvelope<ByteBuffer>) -> Void) { self.onRead = onRead }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { onRead(unwrapInboundIn(data)) }
    }
}
