import CarillonRTC
import NIOCore

/// The server's video forwarding path on its own, for `carillon bench forward --video`: a meeting's
/// ``MeetingMediaCore`` with one VP8 publisher and `receivers` sessions that each receive it over transport-wide
/// congestion control (pacer included), negotiated from browser-like offers and driven in virtual time.
///
/// ``forward(_:)`` is exactly what the media shell does per decrypted uplink packet: the core's receive with a
/// reused output buffer, then each receiver's packet handed on (here dropped). ``runTimers()`` runs what the
/// core's deadline asks for (pacer, feedback, reports), which the shell runs from its timer, off the packet path.
///
/// Not for production use. Threading: one thread.
public final class VideoForwardingBenchmark {
    /// How many sessions receive the publisher's stream.
    public let receivers: Int
    /// The publisher's packets as the peer connection delivers them (parsed, payloads slices of their datagrams).
    public let packets: [RTPPacket]
    private let core: MeetingMediaCore
    private var outputs: [MeetingMediaOutput] = []
    private var now: NIODeadline
    private static let packetInterval = TimeAmount.milliseconds(4)

    /// Sets up the meeting and builds `packetCount` packets of 30 fps VP8 frames of `frameSize` bytes (the first a
    /// key frame) in `payloadSize`-byte payloads, with the transport-wide sequence number extension.
    public init(receivers: Int, packetCount: Int, frameSize: Int = 5_000, payloadSize: Int = 1_100) throws {
        precondition(receivers > 0 && packetCount > 0, "a benchmark forwards at least one packet to one receiver")
        self.receivers = receivers
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        now = start
        core = MeetingMediaCore(now: start)
        let certificate = try DTLSCertificate.generate()
        let candidate = STUNAddress(address: [127, 0, 0, 1], port: 4_000)!
        let publisher = SignalingConnectionID(1)
        let sending = try MeetingMediaNegotiation(
            offer: Self.offer(ufrag: "pub0", cameraSSRC: 1_111, receiveMids: []), certificate: certificate,
            candidate: candidate, video: .init(sending: .allowed, receive: [nil]))
        _ = core.add(publisher, attendeeId: "publisher", negotiation: sending, now: start)
        _ = core.connected(publisher, muted: false, now: start)
        let source = VideoSourceReference(publisher: publisher, streamId: 1, groupId: 1, attendeeId: "publisher")
        for index in 0..<receivers {
            let id = SignalingConnectionID(UInt64(index + 2))
            let receiving = try MeetingMediaNegotiation(
                offer: Self.offer(ufrag: "rcv\(index)", cameraSSRC: nil, receiveMids: ["2"]), certificate: certificate,
                candidate: candidate, video: .init(sending: .none, receive: [nil, source]))
            _ = core.add(id, attendeeId: "receiver\(index)", negotiation: receiving, now: start)
            _ = core.connected(id, muted: false, now: start)
        }

        var packetizer = VP8Packetizer(maximumPayloadSize: payloadSize, firstPictureID: 100)
        var built: [RTPPacket] = []
        built.reserveCapacity(packetCount)
        var sequence: UInt16 = 1_000, timestamp: UInt32 = 90_000, frameIndex = 0
        while built.count < packetCount {
            var frame = [UInt8](repeating: 0x5A, count: frameSize)
            // A VP8 frame tag: key frame (bit 0 clear, with the start code) first, inter frames after.
            frame[0] = frameIndex == 0 ? 0x50 : 0x51
            if frameIndex == 0 { frame[3] = 0x9D; frame[4] = 0x01; frame[5] = 0x2A }
            let payloads = packetizer.payloads(for: frame[...])
            for (index, payload) in payloads.enumerated() where built.count < packetCount {
                let transportSequence = UInt16(truncatingIfNeeded: built.count)
                let datagram = RTPPacket(
                    marker: index == payloads.count - 1, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp,
                    ssrc: 1_111, extensions: [(3, [UInt8(transportSequence >> 8), UInt8(transportSequence & 0xFF)])],
                    payload: payload[...]).serialized()
                built.append(try RTPPacket(parsing: datagram))
                sequence &+= 1
            }
            timestamp &+= 3_000
            frameIndex += 1
        }
        packets = built
        outputs.reserveCapacity(receivers * 2)
    }

    /// Forwards packet `index` at its arrival time (one every 4 ms: 2.2 Mbit/s of 1100-byte payloads, under the
    /// pacer's start rate) and returns how many packets came out for the receivers (they are dropped, as a socket
    /// write would release them).
    public func forward(_ index: Int) -> Int {
        now = now + Self.packetInterval
        core.receive(packets[index], from: SignalingConnectionID(1), now: now, into: &outputs)
        let sent = outputs.count { if case .rtp = $0 { true } else { false } }
        outputs.removeAll(keepingCapacity: true)
        return sent
    }

    /// Runs the core's timers that are due (the pacer's next packets, feedback, reports, the audio mix) and returns
    /// the RTP packets they sent.
    public func runTimers() -> Int {
        guard let due = core.nextDeadline, due <= now else { return 0 }
        return core.tick(now: now).count { if case .rtp = $0 { true } else { false } }
    }

    /// A browser-like offer: Opus audio, the camera m-line (sending from `cameraSSRC`, or inactive), and a receive
    /// m-line per mid, each video m-line with VP8, RTX and transport-wide congestion control.
    private static func offer(ufrag: String, cameraSSRC: UInt32?, receiveMids: [String]) -> String {
        let transport = "a=ice-ufrag:\(ufrag)\r\na=ice-pwd:Vx9sQ3kL8mP2nR7tY4wZ6bC1\r\n"
            + "a=fingerprint:sha-256 7B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08\r\n"
            + "a=setup:actpass\r\n"
        var text = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        text += "a=group:BUNDLE \((["0", "1"] + receiveMids).joined(separator: " "))\r\n"
        text += "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n" + transport
        text += "a=mid:0\r\na=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r\na=sendrecv\r\na=rtcp-mux\r\n"
        text += "a=rtpmap:111 opus/48000/2\r\na=ssrc:5 cname:x\r\n"
        func video(mid: String, direction: String, ssrc: UInt32?) -> String {
            var section = "m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\nc=IN IP4 0.0.0.0\r\n" + transport + "a=mid:\(mid)\r\n"
            section += "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"
            section += "a=\(direction)\r\na=rtcp-mux\r\na=rtcp-rsize\r\na=rtpmap:96 VP8/90000\r\n"
            for feedback in ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"] {
                section += "a=rtcp-fb:96 \(feedback)\r\n"
            }
            section += "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"
            if let ssrc { section += "a=ssrc-group:FID \(ssrc) \(ssrc + 1)\r\na=ssrc:\(ssrc) cname:x\r\na=ssrc:\(ssrc + 1) cname:x\r\n" }
            return section
        }
        text += video(mid: "1", direction: cameraSSRC == nil ? "inactive" : "sendrecv", ssrc: cameraSSRC)
        for mid in receiveMids { text += video(mid: mid, direction: "recvonly", ssrc: nil) }
        return text
    }
}
