import CarillonProtocol
import CarillonRTC
import Dispatch
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing

@testable import Carillon

/// ``SessionEngine`` as the I/O shell of ``SessionCore`` on an `EmbeddedEventLoop`, with scripted sockets: what the
/// core asks is carried out (frames encoded and sent, the media socket bound on the signaling socket's interface and
/// its address offered, sockets closed), inbound frames are decoded into the core, and the one timer follows the
/// core's deadline in the loop's time.
@Suite struct SessionEngineTests {
    /// A signaling socket that records what is sent and lets the test deliver events.
    final class ScriptedSignaling: SessionSignalingChannel {
        let onEvent: (SignalingSocket.Event) -> Void
        var sent: [SdkSignalFrame] = []
        var closed = false
        var localAddress: SocketAddress? = try? SocketAddress(ipAddress: "127.0.0.7", port: 50_000)

        init(onEvent: @escaping (SignalingSocket.Event) -> Void) { self.onEvent = onEvent }

        func send(_ bytes: [UInt8]) {
            if let frame = try? SignalFrameCodec.decode(bytes) { sent.append(frame) }
        }

        func close() { closed = true }

        /// Delivers a frame from the server, encoded as on the wire.
        func deliver(_ frame: SdkSignalFrame) throws { onEvent(.message(try SignalFrameCodec.encode(frame))) }

        var sentTypes: [SdkSignalFrame.TypeEnum] { sent.map(\.type) }
    }

    /// A media socket at a fixed address that records datagrams and whether it was closed.
    final class ScriptedMedia: SessionMediaChannel, @unchecked Sendable {
        let localAddress: STUNAddress
        var datagrams: [[UInt8]] = []
        var closed = false

        init(localAddress: STUNAddress) { self.localAddress = localAddress }

        func receiveDatagrams(_ receive: @escaping ([UInt8], STUNAddress) -> Void) {}
        func send(_ datagram: [UInt8], to target: STUNAddress) { datagrams.append(datagram) }
        func close(promise: EventLoopPromise<Void>?) {
            closed = true
            promise?.succeed()
        }
    }

    /// Hands out scripted sockets and keeps them for the test (everything runs on the embedded loop's thread).
    final class ScriptedTransports: SessionTransports, @unchecked Sendable {
        var signaling: [ScriptedSignaling] = []
        var media: [ScriptedMedia] = []
        var bindHosts: [String] = []

        func openSignaling(to target: SignalingSocket.Target, joinToken: String, tls: NIOSSLContext?,
                           on eventLoop: any EventLoop,
                           onEvent: @escaping (SignalingSocket.Event) -> Void) -> any SessionSignalingChannel {
            let socket = ScriptedSignaling(onEvent: onEvent)
            signaling.append(socket)
            return socket
        }

        func bindMedia(host: String, on eventLoop: any EventLoop) -> EventLoopFuture<any SessionMediaChannel> {
            bindHosts.append(host)
            let socket = ScriptedMedia(localAddress: STUNAddress(address: [127, 0, 0, 7], port: UInt16(40_000 + media.count))!)
            media.append(socket)
            return eventLoop.makeSucceededFuture(socket)
        }
    }

    let loop = EmbeddedEventLoop()
    let transports = ScriptedTransports()

    func engine() throws -> SessionEngine {
        let urls = MeetingSessionURLs(audioFallbackUrl: "ws://127.0.0.1:1/calls/m", audioHostUrl: "127.0.0.1:1",
                                      turnControlUrl: "http://127.0.0.1:1/turn", signalingUrl: "ws://127.0.0.1:1/control/m",
                                      urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let configuration = MeetingSessionConfiguration(
            meetingId: "m", credentials: MeetingSessionCredentials(attendeeId: "a-1", externalUserId: "alice", joinToken: "t"),
            urls: urls, urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let logger = ConsoleLogger(name: "test", level: .OFF)
        return SessionEngine(
            configuration: configuration, target: try SignalingSocket.Target(url: "ws://127.0.0.1:1/control/m"),
            observers: ObserverRegistry(), callbackQueue: DispatchQueue(label: "session-engine-tests"), logger: logger,
            deviceController: DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(), soundCards: { [] }),
            eventLoop: loop, transports: transports, certificate: try DTLSCertificate.generate(commonName: "test"))
    }

    func frame(_ type: SdkSignalFrame.TypeEnum, _ build: (inout SdkSignalFrame) -> Void = { _ in }) -> SdkSignalFrame {
        SdkSignalFrame.with { $0.timestampMs = 1; $0.type = type; build(&$0) }
    }

    @Test func theShellCarriesOutTheCoreAndItsTimerFollowsTheDeadline() throws {
        let engine = try engine()
        #expect(engine.claimStart())
        engine.start(configuration: AudioVideoConfiguration())
        loop.run()
        let socket = try #require(transports.signaling.first)
        #expect(transports.signaling.count == 1 && socket.sent.isEmpty)

        socket.onEvent(.opened)
        #expect(socket.sentTypes == [.pingPong, .join])
        try socket.deliver(frame(.joinAck) { $0.joinack = SdkJoinAckFrame() })
        try socket.deliver(frame(.index) { $0.index = SdkIndexFrame() })
        loop.run()
        // The media socket is bound on the signaling socket's interface; its address is the offer's candidate.
        #expect(transports.bindHosts == ["127.0.0.7"])
        let subscribe = try #require(socket.sent.last)
        #expect(subscribe.type == .subscribe)
        #expect(subscribe.sub.sdpOffer.contains("127.0.0.7 40000 typ host"))
        #expect(!engine.isInMeeting)

        // No pong came: the next ping goes out at the core's deadline, 10 s on, and not before.
        loop.advanceTime(by: .milliseconds(9_990))
        #expect(socket.sentTypes.filter { $0 == .pingPong }.count == 1)
        loop.advanceTime(by: .milliseconds(10))
        #expect(socket.sentTypes.filter { $0 == .pingPong }.count == 2)

        // The signaling socket drops while joining: the media socket closes with it and signaling reconnects after
        // the back-off, on a new socket.
        socket.onEvent(.closed(code: nil))
        loop.run()
        #expect(transports.media.first?.closed == true)
        loop.advanceTime(by: .seconds(5))
        #expect(transports.signaling.count == 2)
    }

    @Test func stoppingBeforeSignalingOpensClosesTheSocketAndEndsTheSession() throws {
        let engine = try engine()
        #expect(engine.claimStart())
        engine.start(configuration: AudioVideoConfiguration())
        loop.run()
        let socket = try #require(transports.signaling.first)
        engine.stop()
        loop.run()
        #expect(socket.closed)
        #expect(!engine.isStarted)
        #expect(transports.media.isEmpty)
    }
}
