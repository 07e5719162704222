import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The server's one UDP port shared by every peer connection: datagrams are demultiplexed first by the ICE
/// username of STUN checks (`<server ufrag>:<client ufrag>`, so a new peer finds its session), then by source address
/// (DTLS, RTP and RTCP carry no identifier).
///
/// Threading: the routing tables live on the port's channel loop, which reads the socket. Each registered connection
/// lives on its own loop (its meeting's). Datagrams cross between loops in batches, never one hop per datagram: what
/// one read burst of the socket brought for connections of another loop is handed over with one `execute` per loop
/// when the burst ends. What a loop's connections send in one turn (a mixer tick: a packet per attendee) is written
/// with one flush, on the next loop's send channel over the same socket (``MediaPortOutbox``): the kernel's send path,
/// the largest share of a forwarding server's time, is spread over every loop rather than all on the socket's.
public final class MediaPort: @unchecked Sendable {
    /// The address the port is bound to.
    public let localAddress: STUNAddress
    private let channel: any Channel
    private let router: Router
    /// One per event loop that owns connections; made at bind for every loop of the port's group (each writing
    /// through the next loop's send channel), later for any other loop a driver is made on.
    private let outboxes: NIOLockedValueBox<[ObjectIdentifier: MediaPortOutbox]>
    /// A send channel per loop of the port's group: a duplicate of the socket's descriptor, never read from.
    private let sendChannels: [any Channel]
    /// What the outboxes wrote, added once per flush on the loop that wrote.
    private let written = NIOLockedValueBox(MediaPortOutbox.Written())

    /// How many source addresses one connection may be reached from at once (it keeps the newest).
    public static let addressesPerConnection = 8

    private init(channel: any Channel, router: Router, localAddress: STUNAddress, sendChannels: [any Channel]) {
        self.channel = channel
        self.router = router
        self.localAddress = localAddress
        self.sendChannels = sendChannels
        outboxes = NIOLockedValueBox([:])
        // Each loop writes through the next loop's send channel: a meeting's own work and the kernel's send path of
        // its datagrams then run on two cores (one 25 x 25 meeting saturated its loop when it did both), and the
        // loops' meetings share the writing evenly.
        for (index, loop) in sendChannels.map(\.eventLoop).enumerated() {
            let sendChannel = sendChannels[(index + 1) % sendChannels.count]
            let outbox = makeOutbox(for: loop, sendChannel: sendChannel)
            outboxes.withLockedValue { $0[ObjectIdentifier(loop)] = outbox }
            // A send channel closes when the kernel refuses a write NIO does not count as recoverable: its outbox then
            // writes through the socket's channel (which such an error would close too: it is the last resort).
            sendChannel.closeFuture.whenComplete { [weak outbox] _ in outbox?.sendChannelClosed() }
        }
    }

    /// Socket buffer size asked for: every attendee of every meeting arrives on this one socket (250 attendees send
    /// 12 500 packets a second), so the default ~200 KiB overflows within a few milliseconds of a busy loop. The
    /// kernel caps it at `net.core.rmem_max`/`wmem_max`.
    public static let socketBufferBytes = 4 << 20

    /// Binds the port, which nobody else may then bind: no `SO_REUSEADDR`, which on Linux lets a second UDP socket
    /// (another server, or a port-0 socket given this port) share it and take some of its datagrams.
    ///
    /// The socket is read on one loop of `group`; every loop of `group` gets a send channel over a duplicate of its
    /// descriptor, and the connections of each loop write through the next loop's (see ``MediaPortOutbox``).
    public static func bind(host: String, port: Int, group: any EventLoopGroup) async throws -> MediaPort {
        let router = Router()
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let socket = try BoundUDPSocket(binding: address, bufferBytes: socketBufferBytes)
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(router) }
                }
                .withBoundSocket(socket.descriptor).get()
        } catch {
            BoundUDPSocket.release(socket.descriptor)
            throw error
        }
        var sendChannels: [any Channel] = []
        do {
            for loop in group.makeIterator() {
                let descriptor = try socket.duplicate()
                do {
                    sendChannels.append(try await DatagramBootstrap(group: loop)
                        .channelOption(.autoRead, value: false)
                        .withBoundSocket(descriptor).get())
                } catch {
                    BoundUDPSocket.release(descriptor)
                    throw error
                }
            }
            guard let local = channel.localAddress.flatMap(STUNAddress.init) else {
                throw ChannelError.unknownLocalAddress
            }
            return MediaPort(channel: channel, router: router, localAddress: local, sendChannels: sendChannels)
        } catch {
            for sendChannel in sendChannels { try? await sendChannel.close() }
            try? await channel.close()
            throw error
        }
    }

    /// A driver for `connection` on `eventLoop` whose datagrams leave through this port. Call
    /// ``register(_:usernameFragment:)`` to receive, then start it on its loop.
    ///
    /// The driver gives each received datagram back once handled: straight to the port's receive pool when it runs on
    /// the socket's loop, else with its loop's outbox, which carries what a turn gave back in the hop it makes anyway.
    public func makeDriver(for connection: PeerConnection, on eventLoop: any EventLoop) -> PeerConnectionDriver {
        let outbox = outbox(for: eventLoop)
        let sameLoop = eventLoop === channel.eventLoop
        let router = self.router
        // A connection sends to one address at a time: its socket address is made once per address, not per datagram
        // (making one allocates twice; it was 5 % of a 20 x 20 meeting's server CPU).
        var last: (target: STUNAddress, address: SocketAddress)?
        return PeerConnectionDriver(connection: connection, eventLoop: eventLoop, transmit: { bytes, target in
            let address: SocketAddress
            if let last, last.target == target {
                address = last.address
            } else {
                address = target.socketAddress
                last = (target, address)
            }
            outbox.send(bytes, to: address)
        }, recycleReceived: { spent in
            if sameLoop { router.receivePool.recycle(consume spent) } else { outbox.giveBack(consume spent) }
        })
    }

    /// The most spare arrays the port keeps to read datagrams into (about 1.5 MiB): more than a read burst's
    /// datagrams in flight to other loops and back.
    public static let receivePoolLimit = 1_024

    /// The one outbox of `eventLoop` on this port: every driver on that loop sends through it.
    private func outbox(for eventLoop: any EventLoop) -> MediaPortOutbox {
        outboxes.withLockedValue { outboxes in
            let key = ObjectIdentifier(eventLoop)
            if let existing = outboxes[key] { return existing }
            let created = makeOutbox(for: eventLoop, sendChannel: nil)
            outboxes[key] = created
            return created
        }
    }

    private func makeOutbox(for eventLoop: any EventLoop, sendChannel: (any Channel)?) -> MediaPortOutbox {
        MediaPortOutbox(eventLoop: eventLoop, socketChannel: channel, sendChannel: sendChannel,
                        onWritten: { [written] batch in
            // Runs on the writing loop, once per flush.
            written.withLockedValue { total in
                total.datagrams += batch.datagrams
                total.bytes += batch.bytes
            }
        }, onGivenBack: { [router] spent in
            // Runs on the port's loop, once per batch; each array moved out so the pool holds its only reference.
            for index in spent.indices {
                var datagram: [UInt8] = []
                swap(&datagram, &spent[index])
                router.receivePool.recycle(consume datagram)
            }
        })
    }

    /// Routes checks for the local ICE credentials' username fragment to `driver`, and then the traffic of each source
    /// address whose check's MESSAGE-INTEGRITY verifies with their password (a forged check, which anyone who saw the
    /// username can send, reaches the connection, which refuses it, but never moves its traffic). Registering the same
    /// fragment again replaces the earlier driver.
    @discardableResult
    public func register(_ driver: PeerConnectionDriver, credentials: ICECredentials) -> EventLoopFuture<Void> {
        channel.eventLoop.submit { [router] in router.register(driver, credentials: credentials) }
    }

    /// Stops routing anything to `driver`.
    @discardableResult
    public func unregister(_ driver: PeerConnectionDriver) -> EventLoopFuture<Void> {
        channel.eventLoop.submit { [router] in router.unregister(driver) }
    }

    /// Number of registered connections (for tests and metrics).
    public func connectionCount() async throws -> Int {
        try await channel.eventLoop.submit { [router] in router.byFragment.count }.get()
    }

    /// The port's counters since it was bound, read on its loop (one hop; for a metrics scrape, not per packet).
    public func statistics() async throws -> MediaPortStatistics {
        var statistics = try await channel.eventLoop.submit { [router] in
            var statistics = router.statistics
            statistics.receiveBuffersAllocated = router.receivePool.freshAllocations
            statistics.receiveBuffersReleased = router.receivePool.released
            return statistics
        }.get()
        let written = written.withLockedValue { $0 }
        statistics.datagramsSent = written.datagrams
        statistics.bytesSent = written.bytes
        return statistics
    }

    /// Closes the port: its send channels, then the socket's channel.
    public func close() async {
        for sendChannel in sendChannels { try? await sendChannel.close() }
        try? await channel.close()
    }
}

/// The routing tables and the channel handler; lives on the port's loop.
private final class Router: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    var byFragment: [String: PeerConnectionDriver] = [:]
    /// Each driver's short-term credential key (its local ICE password's bytes).
    private var keys: [ObjectIdentifier: [UInt8]] = [:]
    private var byAddress: [STUNAddress: PeerConnectionDriver] = [:]
    private var addresses: [ObjectIdentifier: [STUNAddress]] = [:]
    /// Counted on the port's loop, where every datagram passes: plain integers, no lock and no allocation.
    var statistics = MediaPortStatistics()
    /// The arrays datagrams are read into; drivers give them back once handled.
    var receivePool = DatagramBufferPool(limit: MediaPort.receivePoolLimit)
    /// Datagrams of the current read burst for connections owned by other loops, by loop.
    /// A short list (one entry per loop, a handful at most), searched linearly: each entry is moved out whole when
    /// handed over, which a dictionary's values cannot be without a second reference to the list.
    private var pending: [(loop: any EventLoop, datagrams: [(PeerConnectionDriver, [UInt8], STUNAddress)])] = []

    func register(_ driver: PeerConnectionDriver, credentials: ICECredentials) {
        if let previous = byFragment[credentials.usernameFragment], previous !== driver { unregister(previous) }
        byFragment = byFragment.filter { $0.value !== driver }
        byFragment[credentials.usernameFragment] = driver
        keys[ObjectIdentifier(driver)] = Array(credentials.password.utf8)
    }

    func unregister(_ driver: PeerConnectionDriver) {
        byFragment = byFragment.filter { $0.value !== driver }
        keys[ObjectIdentifier(driver)] = nil
        for address in addresses.removeValue(forKey: ObjectIdentifier(driver)) ?? [] where byAddress[address] === driver {
            byAddress[address] = nil
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        statistics.datagramsReceived += 1
        statistics.bytesReceived += envelope.data.readableBytes
        guard let source = STUNAddress(envelope.remoteAddress), let first = envelope.data.readableBytesView.first else {
            return
        }
        // Read into a recycled array: the copy out of NIO's receive buffer (which NIO then reuses) allocates nothing.
        var bytes = receivePool.take()
        envelope.data.withUnsafeReadableBytes { bytes.append(contentsOf: $0) }
        var driver = byAddress[source]
        if first < 4, let fragment = Self.localFragment(of: bytes), let owner = byFragment[fragment] {
            // A check names its session; once it proves it knows the password, its source address routes the rest
            // of that peer's traffic.
            driver = owner
            if let key = keys[ObjectIdentifier(owner)], STUNMessage.verifyIntegrity(bytes, key: key) {
                learn(source, for: owner)
            } else {
                statistics.checksUnverified += 1
            }
        }
        guard let driver else {
            statistics.datagramsUnrouted += 1
            receivePool.recycle(consume bytes)
            return
        }
        if driver.eventLoop.inEventLoop {
            driver.receive(consume bytes, from: source)
        } else if let index = pending.firstIndex(where: { $0.loop === driver.eventLoop }) {
            pending[index].datagrams.append((driver, consume bytes, source))
        } else {
            pending.append((driver.eventLoop, [(driver, consume bytes, source)]))
        }
    }

    /// The end of a read burst: each other loop gets what arrived for it in one hop.
    func channelReadComplete(context: ChannelHandlerContext) {
        while let (loop, datagrams) = pending.popLast() {
            // Moved out of the list and consumed into the hand-over, so the target loop, which may run it before this
            // turn ends, holds the only reference to the list and to each datagram: each is decrypted in place and
            // given back with its storage, never copied.
            let handOver = DatagramBatch(consume datagrams)
            loop.execute { handOver.deliver() }
        }
        context.fireChannelReadComplete()
    }

    private func learn(_ source: STUNAddress, for driver: PeerConnectionDriver) {
        guard byAddress[source] !== driver else { return }
        if let previous = byAddress[source] {
            addresses[ObjectIdentifier(previous)]?.removeAll { $0 == source }
        }
        byAddress[source] = driver
        var known = addresses[ObjectIdentifier(driver), default: []]
        known.append(source)
        if known.count > MediaPort.addressesPerConnection {
            let dropped = known.removeFirst()
            if byAddress[dropped] === driver { byAddress[dropped] = nil }
        }
        addresses[ObjectIdentifier(driver)] = known
    }

    /// The local part of a Binding request's USERNAME (`<local>:<remote>`), without validating the rest.
    private static func localFragment(of bytes: [UInt8]) -> String? {
        guard let message = try? STUNMessage(parsing: bytes), message.messageClass == .request,
              let username = message.username, let colon = username.firstIndex(of: ":")
        else { return nil }
        return String(username[..<colon])
    }
}

/// Datagrams handed from the port's loop to a connection's loop in one hop. Each is moved out before delivery, so the
/// connection holds the only reference and SRTP decrypts it in place.
private final class DatagramBatch: @unchecked Sendable {
    // Written on the port's loop before the hop, read once on the target loop after it: never at the same time.
    private var datagrams: [(PeerConnectionDriver, [UInt8], STUNAddress)]

    init(_ datagrams: [(PeerConnectionDriver, [UInt8], STUNAddress)]) {
        self.datagrams = datagrams
    }

    func deliver() {
        var items = datagrams
        datagrams = []
        for index in items.indices {
            var bytes: [UInt8] = []
            swap(&bytes, &items[index].1)
            items[index].0.receive(consume bytes, from: items[index].2)
        }
    }
}
