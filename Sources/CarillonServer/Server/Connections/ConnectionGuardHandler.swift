import NIOCore
import NIOSSL

/// Reports one TCP connection's life to the ``ConnectionGuard``: its accept, the end of its first request head and
/// its close; closes it when the guard refuses it or its head is late.
///
/// It sits after TLS (it sees plaintext) and before the HTTP codec. It looks for the blank line that ends the first
/// request head (CRLF or bare LF line ends) and passes every byte on untouched; after that head it only forwards.
///
/// Threading: on the channel's event loop, as every channel handler.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connections: ConnectionGuard
    /// Whether no TLS handler is in front: a client that opens with a TLS handshake record is then closed at once
    /// (it used https:// against a plain server and would otherwise wait for the head timeout).
    private let plaintext: Bool
    private var firstByte = true
    private var registered = false
    private var awaitingHead = true
    /// Whether the last byte other than CR was LF: a second LF then ends the head.
    private var atLineStart = false
    private var headTimeout: Scheduled<Void>?

    init(connections: ConnectionGuard, plaintext: Bool) {
        self.connections = connections
        self.plaintext = plaintext
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { register(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        register(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if firstByte, let byte = unwrapInboundIn(data).readableBytesView.first {
            firstByte = false
            // 0x16 starts a TLS handshake record; no HTTP method starts with it.
            if plaintext, byte == 0x16 {
                context.close(promise: nil)
                return
            }
        }
        if awaitingHead, scanForEndOfHead(unwrapInboundIn(data)) {
            awaitingHead = false
            headTimeout?.cancel()
            headTimeout = nil
            connections.requestReceived(context.channel)
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The TLS handler in front reports a failed handshake here, before any request: Hummingbird would only say
        // that the connection closed before its first request.
        if awaitingHead, error is NIOSSLError || error is BoringSSLError {
            connections.tlsFailed(context.channel, reason: "\(error)", now: context.eventLoop.now)
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        headTimeout?.cancel()
        headTimeout = nil
        connections.closed(context.channel)
        context.fireChannelInactive()
    }

    private func register(_ context: ChannelHandlerContext) {
        guard !registered else { return }
        registered = true
        let channel = context.channel
        guard let deadline = connections.open(channel, now: context.eventLoop.now) else { return }
        let connections = self.connections
        let eventLoop = context.eventLoop
        headTimeout = eventLoop.scheduleTask(deadline: deadline) {
            connections.closeIfOverdue(channel, now: eventLoop.now)
        }
    }

    private func scanForEndOfHead(_ buffer: ByteBuffer) -> Bool {
        for byte in buffer.readableBytesView {
            switch byte {
            case UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\n"):
                if atLineStart { return true }
                atLineStart = true
            default:
                atLineStart = false
            }
        }
        return false
    }
}
