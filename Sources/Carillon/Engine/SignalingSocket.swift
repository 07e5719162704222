import CarillonProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket

/// A client WebSocket to a signaling URL, on SwiftNIO, whose events are delivered on its event loop.
///
/// The Chime handshake offers the sub-protocols `_aws_wt_session` and the join token. `ws://` URLs connect in clear;
/// `wss://` URLs speak TLS (swift-nio-ssl), verifying the server's certificate chain against the trust roots the
/// context was made with and its name (or, for an IP literal, its address) against the certificate. The upgrade
/// request, which carries the join token, is written only once the TLS handshake has completed, so a connection whose
/// verification failed never sees the token; such a connection ends with ``Event/tlsFailed(_:)``.
///
/// Threading: `connect` and every callback run on `eventLoop`; `send` and `close` may be called on it only.
final class SignalingSocket: @unchecked Sendable {
    /// What the socket reports to its owner, always on its event loop.
    enum Event {
        case opened
        case message([UInt8])
        /// The socket ended; the close code, or nil when it ended without a close frame (or never opened).
        case closed(code: UInt16?)
        /// The TLS handshake failed (an untrusted, expired or misnamed certificate, or no common protocol); nothing
        /// was sent over the connection. Ends the socket like `.closed`.
        case tlsFailed(String)
    }

    /// Where to connect, parsed from a signaling URL.
    struct Target: Equatable {
        var host: String
        var port: Int
        var pathAndQuery: String
        /// Whether the URL asks for TLS (`wss://` or `https://`).
        var secure: Bool

        init(url: String) throws(SignalingSocketError) {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  let host = components.host, !host.isEmpty
            else { throw .invalidURL(url) }
            switch scheme {
            case "ws", "http": secure = false
            case "wss", "https": secure = true
            default: throw .invalidURL(url)
            }
            // URLComponents keeps the brackets of an IPv6 literal; sockets and certificates want the bare address.
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = components.port ?? (secure ? 443 : 80)
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
    /// Why the TLS handshake failed, once it did; the close that follows is reported as `.tlsFailed`.
    fileprivate var tlsFailure: String?

    private init(eventLoop: any EventLoop, onEvent: @escaping (Event) -> Void) {
        self.eventLoop = eventLoop
        self.onEvent = onEvent
    }

    /// The client TLS context for `trust`: full verification (chain and host name) against the system's trust store
    /// plus the given PEM files. Reads the files; made once per session, not per connection.
    static func makeTLSContext(trust: TLSTrustRoots) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .default
        configuration.additionalTrustRoots = try trust.additionalCertificateFiles.map { path in
            do {
                return .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw SignalingSocketError.unreadableTrustRoots(path: path, reason: "\(error)")
            }
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// Starts connecting; `onEvent` gets `.opened` after the upgrade, then messages, then one `.closed` (or
    /// `.tlsFailed`). A `secure` target needs `tls`; without it the connection fails at once with `.tlsFailed`.
    static func connect(
        to target: Target,
        joinToken: String,
        tls: NIOSSLContext? = nil,
        on eventLoop: any EventLoop,
        onEvent: @escaping (Event) -> Void
    ) -> SignalingSocket {
        eventLoop.assertInEventLoop()
        let socket = SignalingSocket(eventLoop: eventLoop, onEvent: onEvent)
        if target.secure && tls == nil {
            eventLoop.execute { socket.report(.tlsFailed("no TLS context for a wss:// URL")) }
            return socket
        }
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
                let defaultPort = target.secure ? 443 : 80
                let host = target.host.contains(":") ? "[\(target.host)]" : target.host
                headers.add(name: "Host", value: target.port == defaultPort ? host : "\(host):\(target.port)")
                headers.add(name: "Sec-WebSocket-Protocol", value: "_aws_wt_session, \(joinToken)")
                headers.add(name: "User-Agent", value: "carillon/\(CarillonVersion.current)")
                let sender = UpgradeRequestHandler(target: target.pathAndQuery, headers: headers, socket: socket,
                                                   waitsForHandshake: target.secure)
                if target.secure, let tls {
                    do {
                        // SNI and name checks use the host name; an IP literal is checked against the peer address.
                        let isAddress = (try? SocketAddress(ipAddress: target.host, port: 0)) != nil
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : target.host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(TLSFailureRecorder(socket: socket))
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                }
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
                channel.closeFuture.whenComplete { _ in
                    socket.report(socket.tlsFailure.map { .tlsFailed($0) } ?? .closed(code: nil))
                }
            case .failure:
                socket.report(socket.tlsFailure.map { .tlsFailed($0) } ?? .closed(code: nil))
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
        switch event {
        case .closed, .tlsFailed: closedReported = true
        case .opened, .message: break
        }
        onEvent(event)
    }
}

/// Sends the HTTP upgrade request (which carries the join token) once connected, or with TLS once the handshake has
/// completed; reports a refused upgrade as a closed socket.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let target: String
    let headers: HTTPHeaders
    let socket: SignalingSocket
    let waitsForHandshake: Bool

    init(target: String, headers: HTTPHeaders, socket: SignalingSocket, waitsForHandshake: Bool) {
        self.target = target
        self.headers = headers
        self.socket = socket
        self.waitsForHandshake = waitsForHandshake
    }

    func channelActive(context: ChannelHandlerContext) {
        if !waitsForHandshake { sendRequest(context: context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Only a verified handshake gets here: NIOSSL fails the connection before it reports completion otherwise.
        if waitsForHandshake, let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            sendRequest(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func sendRequest(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
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

/// Remembers why the TLS handshake failed, so the socket can report it rather than a bare close.
private final class TLSFailureRecorder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let socket: SignalingSocket

    init(socket: SignalingSocket) { self.socket = socket }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if socket.tlsFailure == nil {
            if let error = error as? NIOSSLError, case .handshakeFailed = error {
                socket.tlsFailure = "TLS handshake failed: \(error)"
            } else if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
                socket.tlsFailure = "the server's certificate does not name it: \(error)"
            }
        }
        context.fireErrorCaught(error)
    }
}
