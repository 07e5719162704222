import CarillonCodecs
import CarillonMedia
import CarillonRTC
import Foundation
import NIOCore
import Synchronization

/// A video benchmark attendee built on Carillon's transport alone (``PeerConnectionSocket`` + ``PeerConnection``), in
/// one of two roles: a publisher offers one `sendonly` VP8 m-line, connects with full ICE (controlling) and sends a
/// ``PreEncodedVP8`` loop; a subscriber answers the server's offer of one `sendonly` VP8 m-line per feed as an
/// ICE-lite agent (the offering server controls) and counts the packets and frames (marker bits) it receives per SSRC.
///
/// Why: the Janus VideoRoom benchmark drives a server that is not Carillon, so it cannot use the SDK's signaling; the
/// media half is the same code the SDK runs. Cost: one UDP socket per bot; a publisher has one timer at the frame
/// rate and packetizes each frame as it sends it (one array per packet); a subscriber does one dictionary update
/// under a lock per packet, no decode. Threading: the socket's loop owns the connection and the timer; counters are
/// behind a mutex or atomics, readable anywhere.
final class WebRTCVideoBot: VideoBenchPeer {
    private let socket: PeerConnectionSocket
    private let certificate: DTLSCertificate
    private let localICE: ICECredentials
    private let ssrc: UInt32
    private let state = BotConnectionState()
    private let sent = Atomic<Int>(0)
    private let framesSent = Atomic<Int>(0)
    private let received = Mutex<[UInt32: ReceivedVideoCounts]>([:])
    private let timer = Mutex<RepeatedTask?>(nil)

    /// Binds a socket on `host` (the veth address in the bench's namespace).
    init(host: String, on loop: any EventLoop) async throws {
        socket = try await PeerConnectionSocket.bind(host: host, on: loop).get()
        certificate = try DTLSCertificate.generate(commonName: "carillon-bot")
        localICE = ICECredentials.random()
        ssrc = UInt32.random(in: 1...UInt32.max)
    }

    /// The bot's ICE credentials, fingerprint and host candidate as an offerer (`actpass`).
    private var transport: TransportDescription {
        TransportDescription(ice: localICE, fingerprint: certificate.fingerprint, setup: .actpass,
                             candidates: [TransportDescription.hostCandidate(for: socket.localAddress)])
    }

    /// A publisher's offer: one `sendonly` VP8 m-line (mid `0`, RTX offered, never sent) with this bot's SSRC.
    func publisherOffer() -> String {
        let sender = VideoSessionDescription.Sender(ssrc: ssrc, rtxSSRC: nil, streamId: "bot", trackId: "bot-video")
        var description = SessionDescription()
        description.bundleGroups = [["0"]]
        description.msidSemantic = "WMS bot"
        description.media = [VideoSessionDescription.offerMedia(mid: "0", direction: .sendonly, transport: transport,
                                                                sender: sender)]
        return description.serialized
    }

    /// A publisher connects with the server's answer: full ICE (controlling), DTLS in the role the answer leaves
    /// (``waitUntilConnected(timeout:)``).
    func connect(answer sdp: String) throws {
        let answer = try SessionDescription(parsing: sdp)
        let remote = try TransportDescription(remote: answer)
        try attach(PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: remote.udpAddresses { !$0.isIPv6 }), localICE: localICE,
            remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint))
    }

    /// A subscriber answers the server's offer: every VP8 m-line accepted `recvonly` (NACK, PLI and FIR feedback
    /// only: the bot sends no transport-wide feedback), anything else rejected; ICE-lite (the offerer controls and
    /// nominates), DTLS client (`setup:active`). Starts the connection and returns the answer.
    func answer(offer sdp: String) throws -> String {
        let offer = try SessionDescription(parsing: sdp)
        let remote = try TransportDescription(remote: offer)
        let transport = TransportDescription(ice: localICE, fingerprint: certificate.fingerprint, setup: .active,
                                             candidates: [TransportDescription.hostCandidate(for: socket.localAddress)],
                                             iceLite: true)
        var media: [MediaDescription] = []
        for offered in offer.media {
            guard var video = VideoSessionDescription.answerMedia(offered, transport: transport, direction: .recvonly,
                                                                  sender: nil) else {
                media.append(AudioSessionDescription.rejected(offered))
                continue
            }
            video.extensions.removeAll { $0.uri == SDPExtension.transportWideCCURI }
            video.codecs = video.codecs.map { codec in
                var codec = codec
                codec.feedback = codec.feedback.filter { ["nack", "nack pli", "ccm fir"].contains($0) }
                return codec
            }
            media.append(video)
        }
        let accepted = media.filter { $0.port != 0 }.compactMap(\.mid)
        guard !accepted.isEmpty else { throw SDPNegotiationError.noCommonCodec("the offer has no VP8 m-line") }
        var description = SessionDescription()
        description.iceLite = true
        description.bundleGroups = [accepted]
        description.msidSemantic = "WMS"
        description.media = media
        try attach(PeerConnectionConfiguration(
            iceRole: .lite, localICE: localICE, remoteICE: remote.ice,
            dtlsRole: TransportDescription.dtlsRole(local: .active, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint))
        return description.serialized
    }

    private func attach(_ configuration: PeerConnectionConfiguration) throws {
        let connection = try PeerConnection(configuration: configuration)
        socket.attach(connection) { [self] event in
            switch event {
            case .iceConnected, .connected, .failed: state.update(event)
            case .rtp(let packet):
                received.withLock { counts in
                    counts[packet.ssrc, default: ReceivedVideoCounts()].packets += 1
                    counts[packet.ssrc, default: ReceivedVideoCounts()].bytes += packet.payload.count
                    if packet.marker { counts[packet.ssrc, default: ReceivedVideoCounts()].frames += 1 }
                }
            default: break
            }
        }
    }

    /// Waits until DTLS is up (SRTP keyed).
    func waitUntilConnected(timeout: Duration = .seconds(20)) async throws {
        try await state.waitUntilConnected(timeout: timeout)
    }

    /// A publisher starts sending `video` on the socket's loop, first frame after `phase`: each frame packetized
    /// (RFC 7741, PictureID increasing by one per frame across loops), timestamps advancing 90 kHz / frame rate,
    /// consecutive sequence numbers, the marker on each frame's last packet.
    func startSending(_ video: PreEncodedVP8, payloadType: UInt8, phase: TimeAmount) {
        let (socket, ssrc) = (self.socket, self.ssrc)
        let firstTimestamp = UInt32.random(in: .min ... .max)
        let sender = Mutex((index: 0, sequenceNumber: UInt16.random(in: .min ... .max), packetizer: VP8Packetizer()))
        let interval = TimeAmount.nanoseconds(1_000_000_000 / Int64(video.frameRate))
        let task = socket.eventLoop.scheduleRepeatedTask(initialDelay: phase, delay: interval) { [self] _ in
            let packets: [[UInt8]] = sender.withLock { state in
                defer { state.index += 1 }
                let frame = video.frames[state.index % video.frames.count]
                let timestamp = firstTimestamp &+ UInt32(truncatingIfNeeded: state.index * 90_000 / video.frameRate)
                let payloads = state.packetizer.payloads(for: frame[...])
                return payloads.enumerated().map { index, payload in
                    defer { state.sequenceNumber &+= 1 }
                    return RTPPacket(marker: index == payloads.count - 1, payloadType: payloadType,
                                     sequenceNumber: state.sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                                     payload: payload[...]).serialized()
                }
            }
            for packet in packets { socket.sendRTP(packet) }
            sent.add(packets.count, ordering: .relaxed)
            framesSent.add(1, ordering: .relaxed)
        }
        timer.withLock { $0 = task }
    }

    /// RTP packets a publisher sent so far.
    var packetsSent: Int { sent.load(ordering: .relaxed) }
    /// Frames a publisher sent so far.
    var framesSentCount: Int { framesSent.load(ordering: .relaxed) }
    /// What a subscriber received so far, per SSRC.
    var receivedBySSRC: [UInt32: ReceivedVideoCounts] { received.withLock { $0 } }

    func sentCounts() async -> (frames: Int, packets: Int) { (framesSentCount, packetsSent) }

    func receivedStreams() async -> [Int: ReceivedVideoCounts] {
        Dictionary(uniqueKeysWithValues: receivedBySSRC.map { (Int($0.key), $0.value) })
    }

    /// Stops sending and closes DTLS and the socket.
    func close() async {
        timer.withLock { $0?.cancel(); $0 = nil }
        await socket.close()
    }
}
