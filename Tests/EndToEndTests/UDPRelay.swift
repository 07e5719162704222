import NIOCore
import NIOPosix

/// A UDP relay in front of the server's media port, a NAT on 127.0.0.1 with two impairments: a share of the
/// datagrams dropped in each direction (seeded Bernoulli loss), and per client a capped downlink, a narrow last hop
/// with a drop-tail queue. Each client address gets its own upstream socket, so the server sees one address per
/// client, as behind a real NAT.
///
/// Threading: everything runs on one event loop; the relay's state is touched only there.
final class UDPRelay: @unchecked Sendable {
    /// The port clients send to.
    let port: Int
    private let eventLoop: any EventLoop
    private let front: any Channel
    private let lossRate: Double
    private var target: SocketAddress?
    private var upstreams: [SocketAddress: EventLoopFuture<any Channel>] = [:]
    /// Client addresses in the order their first datagram came.
    private var clients: [SocketAddress] = []
    private var links: [SocketAddress: CappedLink] = [:]
    /// Octets the server sent each client (counted as they reach the relay, before any cap).
    private var downlinkOctets: [SocketAddress: Int] = [:]
    private var random: UInt64
    private(set) var forwarded = 0
    private(set) var dropped = 0

    /// A downlink of `bitsPerSecond`: a datagram occupies it for its size over the rate, and waits behind the ones
    /// before it in a queue of at most `queueLimitBytes`; what does not fit is dropped, as a router's tail drop.
    private struct CappedLink {
        var bitsPerSecond: Int
        var queueLimitBytes: Int
        var queue: [ByteBuffer] = []
        var queuedBytes = 0
        /// When the link is free for the next datagram.
        var freeAt: NIODeadline = .uptimeNanoseconds(0)
        var drainScheduled = false
        var tailDrops = 0
    }

    private init(front: any Channel, lossRate: Double, seed: UInt64) {
        self.front = front
        eventLoop = front.eventLoop
        port = front.localAddress?.port ?? 0
        self.lossRate = lossRate
        random = seed
    }

    /// Binds the relay on 127.0.0.1; nothing is forwarded until ``forward(to:)``.
    static func start(lossRate: Double = 0, seed: UInt64 = 0x5EED) async throws -> UDPRelay {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let relay = try await eventLoop.submit { () -> EventLoopFuture<UDPRelay> in
            let promise = eventLoop.makePromise(of: UDPRelay.self)
            let box = Box()
            DatagramBootstrap(group: eventLoop)
                .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                .channelInitializer { channel in
                    channel.pipeline.addHandler(Inbound { envelope in box.relay?.fromClient(envelope) })
                }
                .bind(host: "127.0.0.1", port: 0)
                .map { channel -> UDPRelay in
                    let relay = UDPRelay(front: channel, lossRate: lossRate, seed: seed)
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

    /// Datagrams forwarded and dropped by the loss so far, both directions.
    func counts() async throws -> (forwarded: Int, dropped: Int) {
        try await eventLoop.submit { (self.forwarded, self.dropped) }.get()
    }

    /// The client addresses seen so far, in the order their first datagram came.
    func clientAddresses() async throws -> [SocketAddress] {
        try await eventLoop.submit { self.clients }.get()
    }

    /// Caps what the server sends to `client` at `bitsPerSecond` with a queue of `queueLimitBytes`; `nil` lifts the
    /// cap (what is queued goes out at once). Changing the rate keeps the queue.
    func capDownlink(of client: SocketAddress, bitsPerSecond: Int?, queueLimitBytes: Int = 30_000) async throws {
        try await eventLoop.submit {
            guard let bitsPerSecond else {
                if let link = self.links.removeValue(forKey: client) {
                    for datagram in link.queue { self.front.write(AddressedEnvelope(remoteAddress: client, data: datagram), promise: nil) }
                    self.front.flush()
                }
                return
            }
            var link = self.links[client] ?? CappedLink(bitsPerSecond: bitsPerSecond, queueLimitBytes: queueLimitBytes)
            link.bitsPerSecond = bitsPerSecond
            link.queueLimitBytes = queueLimitBytes
            self.links[client] = link
        }.get()
    }

    /// The rate the server sends `client`, in bits per second, measured over `window` from now.
    func downlinkBitrate(of client: SocketAddress, over window: Duration = .seconds(1)) async throws -> Int {
        let before = try await eventLoop.submit { self.downlinkOctets[client, default: 0] }.get()
        try await Task.sleep(for: window)
        let after = try await eventLoop.submit { self.downlinkOctets[client, default: 0] }.get()
        return Int(Double((after - before) * 8) / (Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18))
    }

    /// Datagrams the capped link to `client` dropped because its queue was full.
    func tailDrops(of client: SocketAddress) async throws -> Int {
        try await eventLoop.submit { self.links[client]?.tailDrops ?? 0 }.get()
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
                .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
                .channelInitializer { channel in
                    channel.pipeline.addHandler(Inbound { [weak self] reply in self?.fromServer(reply, to: client) })
                }
                .bind(host: "127.0.0.1", port: 0)
            upstreams[client] = made
            clients.append(client)
            return made
        }()
        let data = envelope.data
        upstream.whenSuccess { channel in
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: data), promise: nil)
        }
    }

    private func fromServer(_ envelope: AddressedEnvelope<ByteBuffer>, to client: SocketAddress) {
        downlinkOctets[client, default: 0] += envelope.data.readableBytes
        guard !drop() else { return }
        guard var link = links[client] else {
            front.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: envelope.data), promise: nil)
            return
        }
        guard link.queuedBytes + envelope.data.readableBytes <= link.queueLimitBytes else {
            link.tailDrops += 1
            links[client] = link
            return
        }
        link.queue.append(envelope.data)
        link.queuedBytes += envelope.data.readableBytes
        links[client] = link
        drain(client)
    }

    /// Sends what the capped link to `client` has finished carrying by now, and schedules itself for the next one.
    private func drain(_ client: SocketAddress) {
        guard var link = links[client] else { return }
        let now = eventLoop.now
        if link.freeAt < now { link.freeAt = now }
        var sent = false
        while let head = link.queue.first, link.freeAt <= now {
            link.queue.removeFirst()
            link.queuedBytes -= head.readableBytes
            link.freeAt = link.freeAt + .nanoseconds(Int64(head.readableBytes) * 8 * 1_000_000_000 / Int64(link.bitsPerSecond))
            front.write(AddressedEnvelope(remoteAddress: client, data: head), promise: nil)
            sent = true
        }
        if sent { front.flush() }
        if !link.queue.isEmpty, !link.drainScheduled {
            link.drainScheduled = true
            eventLoop.scheduleTask(deadline: link.freeAt) { [weak self] in
                guard let self, self.links[client] != nil else { return }
                self.links[client]?.drainScheduled = false
                self.drain(client)
            }
        }
        links[client] = link
    }

    /// Bernoulli loss from a seeded SplitMix64, so a run is repeatable in its pattern.
    private func drop() -> Bool {
        guard lossRate > 0 else {
            forwarded += 1
            return false
        }
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
        var relay: UDPRelay?
    }

    private final class Inbound: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let onRead: (AddressedEnvelope<ByteBuffer>) -> Void
        init(_ onRead: @escaping (AddressedEnvelope<ByteBuffer>) -> Void) { self.onRead = onRead }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { onRead(unwrapInboundIn(data)) }
    }
}
