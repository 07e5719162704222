import CarillonProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A client WebSocket to a signaling URL, on SwiftNIO, whose events are delivered on its event loop.
///
/// The Chime handshake offers the sub-protocols `_aws_wt_session` and the join token. Only `ws://` (and `http://`)
/// URLs are supported: TLS is not built in yet, and `wss://` is refused with ``SignalingSocketError/tlsNotSupported``.
/// Threading: `connect` and every callback run on `eventLoop`; `send` and `close` may be called on it only.
final class SignalingSocket: @unchecked Sendable {
    /// What the socket reports to its owner, always on its event loop.
    enum Event {
        case opened
        case message([UInt8])
        /// The socket ended; the close code, or nil when it ended without a close frame (or never opened).
        case closed(code: UInt16?)
    }

    /// Where to connect, parsed from a signaling URL.
    struct Target: Equatable {
        var host: String
        var port: Int
        var pathAndQuery: String

        init(url: String) throws(SignalingSocketError) {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  let host = components.host, !host.isEmpty
            else { throw .invalidURL(url) }
            switch scheme {
            case "ws", "http": break
            case "wss", "https": throw .tlsNotSupported(url)
            default: throw .invalidURL(url)
            }
            self.host = host
            self.port = components.port ?? 80
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            self.pathAndQuery = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
    }

    let eventLoop: any EventLoop
    private var channel: (any Channel)?

    /// The local end of the connection to the server (the interface that reaches it), once connected.
    var localAddress: SocketAddress? { channel?.localAddress }
    private var closedReported = false
    /// Set once the WebSocket upgrade completed: before that the pipeline speaks HTTP, and a WebSocket frame written
    /// into it traps in NIO.
    private var upgraded = false
    private let onEvent: (Event) -> Void

    private init(eventLoop: any EventLoop, onEvent: @escaping (Event) -> Void) {
        self.eventLoop = eventLoop
        self.onEvent = onEvent
    }

    /// Starts connecting; `onEvent` gets `.opened` after the upgrade, then messages, then one `.closed`.
    static func connect(
        to target: Target,
        joinToken: String,
        on eventLoop: any EventLoop,
        onEvent: @escaping (Event) -> Void
    ) -> SignalingSocket {
        eventLoop.assertInEventLoop()
        let socket = SignalingSocket(eventLoop: eventLoop, onEvent: onEvent)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(
                    requestKey: key,
                    maxFrameSize: 1 << 20,
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let handlers = channel.pipeline.syncOperations
                            try handlers.addHandler(NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: 1 << 20))
                            try handlers.addHandler(SignalingFrameHandler(socket: socket))
                            socket.upgraded = true
                            socket.report(.opened)
                        }
                    }
                )
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: target.port == 80 ? target.host : "\(target.host):\(target.port)")
                headers.add(name: "Sec-WebSocket-Protocol", value: "_aws_wt_session, \(joinToken)")
                headers.add(name: "User-Agent", value: "carillon/\(CarillonVersion.current)")
                let sender = UpgradeRequestHandler(target: target.pathAndQuery, headers: headers, socket: socket)
                return channel.pipeline.addHTTPClientHandlers(
                    withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                        context.pipeline.removeHandler(sender, promise: nil)
                    })
                ).flatMap { channel.pipeline.addHandler(sender) }
            }
        bootstrap.connect(host: target.host, port: target.port).whenComplete { result in
            switch result {
            case .success(let channel):
                socket.channel = channel
                // Closed by its owner while connecting: nobody wants this connection any more.
                if socket.closedReported { channel.close(promise: nil) }
                channel.closeFuture.whenComplete { _ in socket.report(.closed(code: nil)) }
            case .failure:
                socket.report(.closed(code: nil))
            }
        }
        return socket
    }

    /// Sends one binary message (masked, as a client must).
    func send(_ bytes: [UInt8]) {
        eventLoop.assertInEventLoop()
        guard let channel, upgraded, !closedReported else { return }
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: channel.allocator.buffer(bytes: bytes))
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Sends a close frame and closes (before the upgrade completed, just closes); the owner gets no further events.
    func close() {
        eventLoop.assertInEventLoop()
        closedReported = true
        guard let channel else { return }
        guard upgraded else {
            channel.close(promise: nil)
            return
        }
        var payload = channel.allocator.buffer(capacity: 2)
        payload.writeInteger(UInt16(1000))
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: payload)
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }

    fileprivate func report(_ event: Event) {
        eventLoop.assertInEventLoop()
        guard !closedReported else { return }
        if case .closed = event { closedReported = true }
        onEvent(event)
    }
}

/// Why a signaling socket could not be set up.
enum SignalingSocketError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case tlsNotSupported(String)

    var description: String {
        switch self {
        case .invalidURL(let url): "not a usable signaling URL: \(url)"
        case .tlsNotSupported(let url): "TLS (wss://) signaling is not supported by this build yet: \(url)"
        }
    }
}

/// Sends the HTTP upgrade request once connected; reports a refused upgrade as a closed socket.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let target: String
    let headers: HTTPHeaders
    let socket: SignalingSocket

    init(target: String, headers: HTTPHeaders, socket: SignalingSocket) {
        self.target = target
        self.headers = headers
        self.socket = socket
    }

    func channelActive(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Any HTTP response reaching here means the upgrade was refused.
        if case .end = unwrapInboundIn(data) { context.close(promise: nil) }
    }
}

/// Turns WebSocket frames into socket events; answers pings and the server's close.
private final class SignalingFrameHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let socket: SignalingSocket

    init(socket: SignalingSocket) { self.socket = socket }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary:
            socket.report(.message(Array(frame.unmaskedData.readableBytesView)))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var payload = frame.unmaskedData
            let code = payload.readInteger(as: UInt16.self)
            socket.report(.closed(code: code ?? 1005))
            var echo = context.channel.allocator.buffer(capacity: 2)
            if let code { echo.writeInteger(code) }
            let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
