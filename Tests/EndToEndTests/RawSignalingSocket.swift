import CarillonProtocol
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A bare signaling WebSocket for tests that need to misbehave: send arbitrary bytes, vanish without LEAVE, and see
/// exactly which frames and close code the server answers with.
final class RawSignalingSocket: Sendable {
    enum Event: Sendable {
        case message([UInt8])
        case closed(code: UInt16?)
    }

    private let channel: any Channel
    private let inbox: NIOLockedValueBox<[Event]>

    private init(channel: any Channel, inbox: NIOLockedValueBox<[Event]>) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Opens `ws://host:port/control/<meetingId>` offering `_aws_wt_session` and `token` as sub-protocols.
    static func connect(host: String, port: Int, meetingId: String, token: String?) async throws -> RawSignalingSocket {
        let inbox = NIOLockedValueBox<[Event]>([])
        let upgraded = NIOLockedValueBox<EventLoopPromise<Void>?>(nil)
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                let promise = channel.eventLoop.makePromise(of: Void.self)
                upgraded.withLockedValue { $0 = promise }
                let upgrader = NIOWebSocketClientUpgrader(
                    requestKey: Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
                    maxFrameSize: 1 << 20,
                    upgradePipelineHandler: { channel, _ in
                        channel.pipeline.addHandler(FrameCollector(inbox: inbox)).map { promise.succeed() }
                    }
                )
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: "\(host):\(port)")
                if let token { headers.add(name: "Sec-WebSocket-Protocol", value: "_aws_wt_session, \(token)") }
                let request = UpgradeRequestSender(path: "/control/\(meetingId)", headers: headers)
                return channel.pipeline.addHTTPClientHandlers(
                    withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in
                        channel.pipeline.removeHandler(request, promise: nil)
                    })
                ).flatMap { channel.pipeline.addHandler(request) }
            }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        try await upgraded.withLockedValue { $0! }.futureResult.get()
        return RawSignalingSocket(channel: channel, inbox: inbox)
    }

    /// Sends one binary message as it is.
    func send(_ bytes: [UInt8]) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: bytes))
        try await channel.writeAndFlush(frame).get()
    }

    /// Sends a frame with the signaling type byte.
    func send(_ frame: SdkSignalFrame) async throws {
        try await send(try SignalFrameCodec.encode(frame))
    }

    /// Drops the TCP connection without a WebSocket close or a LEAVE.
    func vanish() async {
        try? await channel.close().get()
    }

    /// The next decodable frame of `type`, skipping others; nil once the socket has closed.
    func next(_ type: SdkSignalFrame.TypeEnum, timeout: Duration = .seconds(5)) async throws -> SdkSignalFrame? {
        try await poll(timeout: timeout) { event in
            switch event {
            case .message(let bytes):
                guard let frame = try? SignalFrameCodec.decode(bytes), frame.type == type else { return .skip }
                return .found(frame)
            case .closed:
                return .found(nil)
            }
        }
    }

    /// The close code the server ended the socket with (nil when it just dropped), skipping frames.
    func closeCode(timeout: Duration = .seconds(5)) async throws -> UInt16? {
        try await poll(timeout: timeout) { event in
            if case .closed(let code) = event { return .found(code) }
            return .skip
        }
    }

    private enum Verdict<Value> {
        case skip
        case found(Value)
    }

    private func poll<Value>(timeout: Duration, _ judge: (Event) -> Verdict<Value>) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            while let event = inbox.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) {
                if case .found(let value) = judge(event) { return value }
            }
            guard ContinuousClock.now < deadline else { throw RawSocketTimeout() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

struct RawSocketTimeout: Error {}

/// Sends the upgrade request once the channel is active.
private final class UpgradeRequestSender: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let path: String
    let headers: HTTPHeaders

    init(path: String, headers: HTTPHeaders) {
        self.path = path
        self.headers = headers
    }

    func channelActive(context: ChannelHandlerContext) {
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }
}

/// Collects WebSocket messages and the close code into the socket's event stream.
private final class FrameCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    let inbox: NIOLockedValueBox<[RawSignalingSocket.Event]>

    init(inbox: NIOLockedValueBox<[RawSignalingSocket.Event]>) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .binary, .text:
            let bytes = Array(frame.unmaskedData.readableBytesView)
            inbox.withLockedValue { $0.append(.message(bytes)) }
        case .connectionClose:
            var payload = frame.unmaskedData
            let code = payload.readInteger(as: UInt16.self)
            inbox.withLockedValue { $0.append(.closed(code: code)) }
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.withLockedValue { events in
            if !events.contains(where: { if case .closed = $0 { true } else { false } }) { events.append(.closed(code: nil)) }
        }
    }
}
