import NIOCore
import NIOPosix

/// A UDP socket of its own for one client peer connection: bind it first (its address is the SDP host candidate),
/// then ``attach(_:onEvent:)`` the connection once the answer is known, or, for an owner that runs its
/// ``PeerConnection`` itself (the SDK's session core), take the datagrams with ``receiveDatagrams(_:)`` and put its
/// own on the wire with ``send(_:to:)``.
///
/// Threading: the socket's channel loop owns the connection; `attach`, `sendRTP`, `sendRTCP` and `close` hop onto it.
public final class PeerConnectionSocket: @unchecked Sendable {
    /// The local address the socket is bound to.
    public let localAddress: STUNAddress
    /// The loop that owns the socket and the attached connection.
    public var eventLoop: any EventLoop { channel.eventLoop }
    private let channel: any Channel
    private let handler: DatagramHandler

    private init(channel: any Channel, handler: DatagramHandler, localAddress: STUNAddress) {
        self.channel = channel
        self.handler = handler
        self.localAddress = localAddress
    }

    /// Receive buffer size asked for: a client receiving many videos gets their key frames at once (ten 720p key
    /// frames are about 1 MB), more than the default ~200 KiB holds while its loop is busy decoding. The kernel caps
    /// it at `net.core.rmem_max`.
    public static let receiveBufferBytes = 2 << 20

    /// Binds a UDP socket on one of `group`'s loops (port 0 picks a free one).
    public static func bind(host: String, port: Int = 0, group: any EventLoopGroup) async throws -> PeerConnectionSocket {
        try await bind(host: host, port: port, on: group.next()).get()
    }

    /// Binds a UDP socket owned by `eventLoop` (port 0 picks a free one); the future completes on that loop, so an
    /// owner running there continues without a hop.
    ///
    /// No `SO_REUSEADDR`: on Linux a UDP socket with it that asks for port 0 may be given a port another such socket
    /// already holds, and the kernel then delivers that port's datagrams to one of the two only (two sessions in one
    /// process lost each other's media: one stopped hearing after a few packets, the other never finished ICE). A
    /// port held here is refused to everyone else.
    public static func bind(host: String, port: Int = 0, on eventLoop: any EventLoop) -> EventLoopFuture<PeerConnectionSocket> {
        let handler = DatagramHandler()
        return DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(host: host, port: port)
            .flatMap { channel in
                guard let address = channel.localAddress.flatMap(STUNAddress.init) else {
                    return channel.close().flatMapThrowing { throw ChannelError.unknownLocalAddress }
                }
                return channel.eventLoop.makeSucceededFuture(
                    PeerConnectionSocket(channel: channel, handler: handler, localAddress: address))
            }
    }

    /// Runs `connection` on this socket: starts it and reports its events on ``eventLoop``.
    public func attach(_ connection: PeerConnection, onEvent: @escaping @Sendable (PeerConnectionEvent) -> Void) {
        let channel = self.channel
        let transfer = UncheckedTransfer(connection)
        eventLoop.execute { [handler] in
            let driver = PeerConnectionDriver(connection: transfer.value, eventLoop: channel.eventLoop) { bytes, target in
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: target.socketAddress,
                                                        data: channel.allocator.buffer(bytes: bytes)), promise: nil)
            }
            handler.driver?.stop()
            handler.driver = driver
            driver.start(onEvent: onEvent)
        }
    }

    /// Hands every datagram that arrives from now on to `receive` (on ``eventLoop``, where this must be called),
    /// instead of to an attached connection.
    public func receiveDatagrams(_ receive: @escaping ([UInt8], STUNAddress) -> Void) {
        eventLoop.preconditionInEventLoop()
        handler.receiver = receive
    }

    /// Puts one datagram on the wire to `target`; call on ``eventLoop``.
    public func send(_ datagram: [UInt8], to target: STUNAddress) {
        eventLoop.preconditionInEventLoop()
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: target.socketAddress,
                                                data: channel.allocator.buffer(bytes: datagram)), promise: nil)
    }

    /// Sends an RTP packet over the attached connection (dropped when it is not connected). On the socket's own loop
    /// (the SDK's session loop) it sends at once; from elsewhere it hops there.
    public func sendRTP(_ packet: [UInt8]) {
        if eventLoop.inEventLoop {
            handler.driver?.sendRTP(packet)
        } else {
            eventLoop.execute { [handler] in handler.driver?.sendRTP(packet) }
        }
    }

    /// Sends an RTCP compound packet over the attached connection.
    public func sendRTCP(_ compound: [UInt8]) {
        eventLoop.execute { [handler] in handler.driver?.sendRTCP(compound) }
    }

    /// Runs `body` on the loop with the attached connection's driver, if any.
    public func withDriver<T: Sendable>(_ body: @escaping @Sendable (PeerConnectionDriver?) -> T) async throws -> T {
        try await eventLoop.submit { [handler] in body(handler.driver) }.get()
    }

    /// Closes DTLS (close_notify) and the socket without waiting; `promise` (if any) completes when the socket is
    /// closed. On the socket's own loop the connection stops at once.
    public func close(promise: EventLoopPromise<Void>?) {
        if eventLoop.inEventLoop {
            closeOnLoop(promise: promise)
        } else {
            eventLoop.execute { self.closeOnLoop(promise: promise) }
        }
    }

    private func closeOnLoop(promise: EventLoopPromise<Void>?) {
        handler.driver?.stop()
        handler.driver = nil
        handler.receiver = nil
        channel.close(promise: promise)
    }

    /// Closes DTLS (close_notify) and the socket.
    public func close() async {
        let promise = eventLoop.makePromise(of: Void.self)
        close(promise: promise)
        try? await promise.futureResult.get()
    }
}

/// Hands received datagrams to the attached driver, or to the owner's receiver; lives on the channel's loop.
private final class DatagramHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    var driver: PeerConnectionDriver?
    var receiver: (([UInt8], STUNAddress) -> Void)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let source = STUNAddress(envelope.remoteAddress) else { return }
        if let receiver {
            receiver(Array(envelope.data.readableBytesView), source)
        } else if let driver {
            driver.receive(Array(envelope.data.readableBytesView), from: source)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors (port unreachable) surface here; ICE consent handles a peer that is really gone.
    }
}
