import ArgumentParser
import CarillonRTC
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// `carillon peer`: a standalone WebRTC endpoint for checking interoperability with other stacks (browsers,
/// aiortc). It offers or answers one audio m-line, connects (ICE, DTLS-SRTP), sends Opus silence every 20 ms,
/// counts what the other side sends, and reports.
///
/// It talks JSON lines: it prints `{"type":"offer","sdp":...}` (with `--offer`) or reads an offer and prints
/// `{"type":"answer",...}`; it reads the other side's description from stdin the same way; it prints
/// `{"type":"event",...}` lines as the connection progresses and one `{"type":"result",...}` line at the end.
struct PeerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peer",
        abstract: "A standalone WebRTC audio endpoint for interop checks (JSON lines on stdin/stdout)."
    )

    @Flag(name: .customLong("offer"), help: "Make the offer (controlling ICE agent, DTLS role from the answer).")
    var offers = false

    @Flag(name: .customLong("answer"), help: "Answer an offer read from stdin (ICE-lite, DTLS server).")
    var answers = false

    @Option(help: "Local address to bind and announce as the host candidate.")
    var host: String = "127.0.0.1"

    @Option(help: "Opus packets (20 ms each) to send once connected.")
    var packets: Int = 150

    @Option(help: "Seconds to stay connected before reporting.")
    var duration: Double = 5

    @Option(help: "Seconds to wait for the connection before giving up.")
    var timeout: Double = 20

    func validate() throws {
        guard offers != answers else { throw ValidationError("give exactly one of --offer and --answer") }
        guard packets >= 0, duration > 0, timeout > 0 else { throw ValidationError("counts and times must be positive") }
    }

    /// What the run waits for.
    enum Progress: Sendable {
        case connected
        case failed(String)
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let socket = try await PeerConnectionSocket.bind(host: host, group: group)
        let certificate = try DTLSCertificate.generate()
        let local = TransportDescription(
            ice: .random(), fingerprint: certificate.fingerprint, setup: offers ? .actpass : .passive,
            candidates: [TransportDescription.hostCandidate(for: socket.localAddress)], iceLite: answers)
        let ssrc = UInt32.random(in: 1...UInt32.max)
        let configuration: PeerConnectionConfiguration
        let payloadType: UInt8
        if offers {
            let offer = AudioSessionDescription.offer(transport: local, ssrc: ssrc)
            print(json: ["type": "offer", "sdp": offer.serialized])
            let answer = try SessionDescription(parsing: try readDescription(type: "answer"))
            let remote = try TransportDescription(remote: answer)
            payloadType = try AudioSessionDescription.opusPayloadType(in: answer)
            configuration = PeerConnectionConfiguration(
                iceRole: .controlling(remoteCandidates: remote.udpAddresses()), localICE: local.ice,
                remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
                certificate: certificate, remoteFingerprint: remote.fingerprint)
        } else {
            let offer = try SessionDescription(parsing: try readDescription(type: "offer"))
            let remote = try TransportDescription(remote: offer)
            var answerTransport = local
            // An offer that insists on being the DTLS server leaves this side the client.
            answerTransport.setup = remote.setup == .passive ? .active : .passive
            let answer = try AudioSessionDescription.answer(to: offer, transport: answerTransport, ssrc: ssrc)
            payloadType = try AudioSessionDescription.opusPayloadType(in: answer)
            print(json: ["type": "answer", "sdp": answer.serialized])
            configuration = PeerConnectionConfiguration(
                iceRole: .lite, localICE: local.ice, remoteICE: remote.ice,
                dtlsRole: TransportDescription.dtlsRole(local: answerTransport.setup, remote: remote.setup),
                certificate: certificate, remoteFingerprint: remote.fingerprint)
        }

        let connection = try PeerConnection(configuration: configuration)
        let counters = PeerCounters()
        let progress = AsyncStream.makeStream(of: Progress.self)
        socket.attach(connection) { event in
            switch event {
            case .iceConnected(let address):
                print(json: ["type": "event", "event": "ice-connected", "address": address.description])
            case .connected(let profile):
                counters.connected(profile: profile)
                print(json: ["type": "event", "event": "connected", "srtpProfile": profile.description])
                progress.continuation.yield(.connected)
            case .rtp(let packet):
                counters.receivedRTP(ssrc: packet.ssrc)
            case .rtcp:
                counters.receivedRTCP()
            case .failed(let failure):
                progress.continuation.yield(.failed("\(failure)"))
            case .pathChanged, .closed:
                break
            }
        }

        let outcome = await firstProgress(progress.stream, timeout: timeout)
        if case .connected = outcome {
            // 20 ms of Opus silence (a CELT-only frame) per packet, stamped as a real sender would.
            for index in 0..<packets {
                let packet = RTPPacket(payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: index),
                                       timestamp: UInt32(truncatingIfNeeded: index * 960), ssrc: ssrc,
                                       payload: [0xF8, 0xFF, 0xFE])
                socket.sendRTP(packet.serialized())
                counters.sentRTP()
                try await Task.sleep(for: .milliseconds(20))
            }
            let remaining = duration - Double(packets) * 0.02
            if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        }
        var result = counters.report()
        if case .failed(let reason) = outcome { result["error"] = reason }
        if case .none = outcome { result["error"] = "not connected within \(timeout) s" }
        print(json: result)
        await socket.close()
        try await group.shutdownGracefully()
    }

    private func firstProgress(_ stream: AsyncStream<Progress>, timeout: Double) async -> Progress? {
        await withTaskGroup(of: Progress?.self) { tasks in
            tasks.addTask {
                for await progress in stream { return progress }
                return nil
            }
            tasks.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await tasks.next() ?? nil
            tasks.cancelAll()
            return first
        }
    }

    private func readDescription(type: String) throws -> String {
        while let line = Swift.readLine() {
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["type"] as? String == type, let sdp = object["sdp"] as? String
            else { continue }
            return sdp
        }
        throw ValidationError("stdin closed before the \(type)")
    }
}

/// Counters shared between the connection's loop and the command.
private final class PeerCounters: Sendable {
    private struct State {
        var profile: SRTPProfile?
        var rtpSent = 0
        var rtpReceived = 0
        var rtcpReceived = 0
        var ssrcs = Set<UInt32>()
    }

    private let state = Mutex(State())

    func connected(profile: SRTPProfile) { state.withLock { $0.profile = profile } }
    func sentRTP() { state.withLock { $0.rtpSent += 1 } }
    func receivedRTCP() { state.withLock { $0.rtcpReceived += 1 } }
    func receivedRTP(ssrc: UInt32) {
        state.withLock {
            $0.rtpReceived += 1
            $0.ssrcs.insert(ssrc)
        }
    }

    func report() -> [String: any Sendable] {
        state.withLock { state in
            [
                "type": "result", "connected": state.profile != nil, "srtpProfile": state.profile?.description ?? "",
                "rtpSent": state.rtpSent, "rtpReceived": state.rtpReceived, "rtcpReceived": state.rtcpReceived,
                "receivedSSRCs": state.ssrcs.sorted().map(Int.init),
            ]
        }
    }
}

/// Prints one JSON object on its own line, flushed.
private func print(json object: [String: any Sendable]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    StandardOutput.line(String(decoding: data, as: UTF8.self))
}
