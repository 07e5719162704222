import CarillonCodecs
import CarillonRTC
import Foundation
import NIOCore
import Synchronization

/// A benchmark attendee built on Carillon's transport alone (``PeerConnectionSocket`` + ``PeerConnection``): it
/// offers one Opus audio m-line, connects with full ICE in the controlling role to whatever server answered, sends
/// pre-encoded Opus and counts (optionally decodes) what it receives.
///
/// Why: the Janus benchmark drives a server that is not Carillon, so it cannot use the SDK's signaling; the media
/// half is the same code the SDK runs. Cost: one UDP socket and one timer on one loop (20 ms for a talker, 400 ms for
/// a DTX listener, none when muted); receiving is a counter
/// increment per packet (plus an Opus decode when `decodes`). Threading: the socket's loop owns the connection and
/// the timer; the counters are atomics, readable anywhere.
final class WebRTCAudioBot: Sendable {
    /// What the bot sends.
    enum Sending: Sendable {
        /// A tone: one pre-encoded packet every 20 ms, voice flag set.
        case talking
        /// A listener's discontinuous transmission: a silence packet every 400 ms, level 127.
        case dtx
        /// Nothing.
        case muted
    }

    /// The offer to hand to the server (Janus's: one audio m-line).
    let offer: String
    /// This bot's ICE credentials, DTLS fingerprint and host candidate.
    private let transport: TransportDescription
    /// The SSRC the bot sends its audio on.
    let ssrc: UInt32
    private let payloadType = Atomic<UInt8>(AudioSessionDescription.offeredOpusPayloadType)
    private let socket: PeerConnectionSocket
    private let certificate: DTLSCertificate
    private let received = Atomic<Int>(0)
    private let state = BotConnectionState()
    private let decoder: Mutex<ToneListener?>
    /// Whether ``decoder`` holds a listener: the others take no lock per packet.
    private let decodes: Bool
    private let timer = Mutex<RepeatedTask?>(nil)

    /// Binds a socket on `host` (the veth address in the bench's namespace) and builds the offer.
    init(host: String, on loop: any EventLoop, decodes: Bool = false) async throws {
        socket = try await PeerConnectionSocket.bind(host: host, on: loop).get()
        certificate = try DTLSCertificate.generate(commonName: "carillon-bot")
        ssrc = UInt32.random(in: 1...UInt32.max)
        transport = TransportDescription(ice: .random(), fingerprint: certificate.fingerprint, setup: .actpass,
                                         candidates: [TransportDescription.hostCandidate(for: socket.localAddress)])
        offer = AudioSessionDescription.offer(transport: transport, ssrc: ssrc).serialized
        decoder = Mutex(decodes ? try ToneListener() : nil)
        self.decodes = decodes
    }

    /// Connects with the server's answer: full ICE (controlling, nominating, answering the server's checks), DTLS in
    /// the role the answer leaves (`setup:active` makes this bot the server), then SRTP
    /// (``waitUntilConnected(timeout:)``). The Opus payload type the answer kept is what
    /// ``startSending(_:audio:phase:)`` sends.
    func connect(answer sdp: String) throws {
        let answer = try SessionDescription(parsing: sdp)
        let remote = try TransportDescription(remote: answer)
        payloadType.store(try AudioSessionDescription.opusPayloadType(in: answer), ordering: .relaxed)
        let configuration = PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: remote.udpAddresses { !$0.isIPv6 }), localICE: transport.ice,
            remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint)
        let connection = try PeerConnection(configuration: configuration)
        socket.attach(connection) { [self] event in
            switch event {
            case .iceConnected, .connected, .failed: state.update(event)
            case .rtp(let packet):
                received.add(1, ordering: .relaxed)
                if decodes { decoder.withLock { $0?.add(packet.payload) } }
            default: break
            }
        }
    }

    /// Waits until DTLS is up (SRTP keyed).
    func waitUntilConnected(timeout: Duration = .seconds(20)) async throws {
        try await state.waitUntilConnected(timeout: timeout)
    }

    /// Starts sending on the socket's loop, first packet after `phase` (spreads the bots' timers). A talker's timer
    /// fires every 20 ms, a DTX listener's every 400 ms (the packets and their sequence numbers and timestamps are
    /// the same as a 20 ms clock sending every 20th tick would give, at a twentieth of the wake-ups).
    func startSending(_ sending: Sending, audio: PreEncodedOpus, phase: TimeAmount) {
        let talking: Bool
        switch sending {
        case .muted: return
        case .talking: talking = true
        case .dtx: talking = false
        }
        let (socket, ssrc, payloadType) = (self.socket, self.ssrc, self.payloadType.load(ordering: .relaxed))
        let sent = Mutex(0)
        let ticksPerPacket = talking ? 1 : 20
        let task = socket.eventLoop.scheduleRepeatedTask(initialDelay: phase, delay: .milliseconds(Int64(20 * ticksPerPacket))) { _ in
            let index = sent.withLock { value in defer { value += 1 }; return value }
            socket.sendRTP(PreEncodedOpus.packet(
                payload: talking ? audio.tone[index % audio.tone.count] : audio.silence,
                level: talking ? audio.toneLevel : 127, voice: talking, payloadType: payloadType,
                sequenceNumber: UInt16(truncatingIfNeeded: index),
                timestamp: UInt32(truncatingIfNeeded: index * ticksPerPacket * 960), ssrc: ssrc))
        }
        timer.withLock { $0 = task }
    }

    /// RTP packets received so far.
    var receivedPackets: Int { received.load(ordering: .relaxed) }

    /// The dominant one of `candidates` in the last second this bot decoded (only when created with `decodes`).
    func dominantFrequency(of candidates: [Double]) -> Double? { decoder.withLock { $0?.dominant(of: candidates) } }

    /// Stops sending and closes DTLS and the socket.
    func close() async {
        timer.withLock { $0?.cancel(); $0 = nil }
        await socket.close()
    }
}

/// The decoding side of one bot: Opus to PCM, the last second kept for a frequency check.
private struct ToneListener {
    let decoder: OpusDecoder
    var samples: [Int16] = []

    init() throws { decoder = try OpusDecoder(format: AudioFormat(sampleRate: 48_000, channels: 1)) }

    mutating func add(_ payload: ArraySlice<UInt8>) {
        guard let frame = try? decoder.decode(payload) else { return }
        samples.append(contentsOf: frame.samples)
        if samples.count > 96_000 { samples.removeFirst(samples.count - 48_000) }
    }

    func dominant(of candidates: [Double]) -> Double? {
        guard samples.count >= 48_000 else { return nil }
        return FrequencyAnalysis.dominantFrequency(samples: samples.suffix(48_000), sampleRate: 48_000, candidates: candidates)
    }
}
