import Carillon
import CarillonServer
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

/// TLS end to end: a server serving HTTPS and WSS with a certificate the test made, sessions joining over `wss://`,
/// and certificates a client must refuse (untrusted CA, expired) without ever sending its join token.
@Suite(.timeLimit(.minutes(2)))
struct TLSEndToEndTests {
    func session(_ configuration: MeetingSessionConfiguration, name: String, trusting files: [String])
        -> (session: DefaultMeetingSession, probe: SessionProbe) {
        let session = DefaultMeetingSession(
            configuration: configuration, logger: ConsoleLogger(name: name, level: .OFF),
            callbackQueue: DispatchQueue(label: "tls-e2e.\(name)"),
            tlsTrustRoots: TLSTrustRoots(additionalCertificateFiles: files))
        let probe = SessionProbe(name: name)
        session.audioVideo.addAudioVideoObserver(observer: probe)
        session.audioVideo.addRealtimeObserver(observer: probe)
        return (session, probe)
    }

    @Test func attendeesJoinOverWSSAndTheControlAPIOverHTTPS() async throws {
        let certificates = try TestCertificates.make()
        let harness = try await ServerHarness.start(
            tls: ServerTLS(certificateChainPath: certificates.leaf.certificate, privateKeyPath: certificates.leaf.key),
            trustedCertificateFiles: [certificates.caFile])
        defer { Task { await harness.stop() } }
        #expect(harness.address.endpoint.hasPrefix("https://"))
        let meeting = try await harness.createMeeting()
        let alice = session(try await harness.configuration(meeting: meeting, name: "alice"), name: "alice",
                            trusting: [certificates.caFile])
        #expect(alice.session.configuration.urls.signalingUrl.hasPrefix("wss://127.0.0.1:"))
        let bob = session(try await harness.configuration(meeting: meeting, name: "bob"), name: "bob",
                          trusting: [certificates.caFile])
        try alice.session.audioVideo.start()
        try bob.session.audioVideo.start()
        try await alice.probe.wait("alice in the meeting over wss") { $0.starts == [false] }
        try await bob.probe.wait("bob in the meeting over wss") { $0.starts == [false] }
        try await alice.probe.wait("full roster") { $0.roster == ["alice", "bob"] }
        alice.session.audioVideo.stop()
        bob.session.audioVideo.stop()
        try await alice.probe.wait("stopped") { $0.stopStatus == .ok }
        try await bob.probe.wait("stopped") { $0.stopStatus == .ok }
    }

    @Test func aReloadedCertificateServesNewConnections() async throws {
        let certificates = try TestCertificates.make()
        // The server reads these paths; the test swaps what is in them, as a renewal would.
        let served = (certificates.path("served.pem"), certificates.path("served.key"))
        try FileManager.default.copyItem(atPath: certificates.leaf.certificate, toPath: served.0)
        try FileManager.default.copyItem(atPath: certificates.leaf.key, toPath: served.1)
        let harness = try await ServerHarness.start(
            tls: ServerTLS(certificateChainPath: served.0, privateKeyPath: served.1),
            trustedCertificateFiles: [certificates.caFile])
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let before = try await harness.configuration(meeting: meeting, name: "before")
        let after = try await harness.configuration(meeting: meeting, name: "after")

        try FileManager.default.removeItem(atPath: served.0)
        try FileManager.default.copyItem(atPath: certificates.untrustedLeaf.certificate, toPath: served.0)
        // Not reloaded yet: the trusted certificate is still served.
        let early = session(before, name: "before", trusting: [certificates.caFile])
        try early.session.audioVideo.start()
        try await early.probe.wait("joined with the old certificate") { $0.starts == [false] }
        early.session.audioVideo.stop()

        try harness.server.reloadTLS()
        let refused = session(after, name: "after", trusting: [certificates.caFile])
        try refused.session.audioVideo.start()
        try await refused.probe.wait("the reloaded certificate is not trusted") { $0.stopStatus == .audioServiceUnavailable }
        let trusting = session(after, name: "after-other-ca", trusting: [certificates.otherCAFile])
        try trusting.session.audioVideo.start()
        try await trusting.probe.wait("joined with the reloaded certificate") { $0.starts == [false] }
        trusting.session.audioVideo.stop()

        // A broken file is refused and the current certificate kept.
        try "not a certificate".write(toFile: served.0, atomically: true, encoding: .utf8)
        #expect(throws: MeetingServerError.self) { try harness.server.reloadTLS() }
    }

    @Test(arguments: ["untrusted", "expired"])
    func aRefusedCertificateFailsTheJoinAndTheTokenIsNeverSent(kind: String) async throws {
        let certificates = try TestCertificates.make()
        let recorder = try await PlaintextRecorder.start(
            certificate: kind == "expired" ? certificates.expiredLeaf : certificates.untrustedLeaf)
        let token = "join-token-that-must-stay-secret-\(kind)"
        let refused = session(recorder.configuration(joinToken: token), name: kind, trusting: [certificates.caFile])
        try refused.session.audioVideo.start()
        try await refused.probe.wait("\(kind) certificate refused", timeout: .seconds(20)) {
            $0.stopStatus == .audioServiceUnavailable
        }
        // The client reached the server (a handshake began) and sent nothing over the failed connection.
        #expect(recorder.connections >= 1)
        #expect(recorder.plaintext.isEmpty)
        #expect(refused.probe.snapshot.starts.isEmpty)
        await recorder.stop()

        // The same recorder with a trusted certificate does see the token: the check above can fail.
        let control = try await PlaintextRecorder.start(certificate: certificates.leaf)
        let trusting = session(control.configuration(joinToken: token), name: "\(kind)-control", trusting: [certificates.caFile])
        try trusting.session.audioVideo.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while !String(decoding: control.plaintext, as: UTF8.self).contains(token), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(String(decoding: control.plaintext, as: UTF8.self).contains(token))
        trusting.session.audioVideo.stop()
        await control.stop()
    }
}

/// A TLS server on 127.0.0.1 that completes handshakes with the certificate it is given and records every decrypted
/// byte a client sends; it never answers.
final class PlaintextRecorder: Sendable {
    private let channel: any Channel
    private let received = Mutex<(connections: Int, bytes: [UInt8])>((0, []))

    private init(channel: any Channel) {
        self.channel = channel
    }

    static func start(certificate: (certificate: String, key: String)) async throws -> PlaintextRecorder {
        let context = try NIOSSLContext(configuration: .makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificate.key, format: .pem))))
        let box = Box()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Collector(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let recorder = PlaintextRecorder(channel: channel)
        box.recorder.withLock { $0 = recorder }
        return recorder
    }

    var connections: Int { received.withLock { $0.connections } }
    var plaintext: [UInt8] { received.withLock { $0.bytes } }
    var port: Int { channel.localAddress?.port ?? 0 }

    func configuration(joinToken: String) -> MeetingSessionConfiguration {
        let urls = MeetingSessionURLs(
            audioFallbackUrl: "wss://127.0.0.1:\(port)/calls/m", audioHostUrl: "127.0.0.1:9",
            turnControlUrl: "https://127.0.0.1:\(port)/turn", signalingUrl: "wss://127.0.0.1:\(port)/control/m",
            urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        return MeetingSessionConfiguration(
            meetingId: "m", credentials: MeetingSessionCredentials(attendeeId: "a", externalUserId: "e", joinToken: joinToken),
            urls: urls, urlRewriter: URLRewriterUtils.defaultUrlRewriter)
    }

    func stop() async { try? await channel.close() }

    fileprivate func connected() { received.withLock { $0.connections += 1 } }
    fileprivate func record(_ bytes: ByteBuffer) { received.withLock { $0.bytes += Array(bytes.readableBytesView) } }

    /// Lets the child handlers reach the recorder made after the bootstrap.
    private final class Box: Sendable {
        let recorder = Mutex<PlaintextRecorder?>(nil)
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let box: Box
        init(box: Box) { self.box = box }

        func channelActive(context: ChannelHandlerContext) {
            box.recorder.withLock { $0 }?.connected()
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            box.recorder.withLock { $0 }?.record(unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}
