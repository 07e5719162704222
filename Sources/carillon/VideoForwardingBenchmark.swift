import CarillonMedia
import CarillonRTC
import CarillonServer
import NIOCore

/// The server's video forwarding path on its own, for `carillon bench forward --video`: a meeting's
/// ``MeetingMediaCore`` with one VP8 publisher and `receivers` sessions that each receive it over transport-wide
/// congestion control (pacer included), negotiated from browser-like offers and driven in virtual time.
///
/// ``forward(_:)`` is what the media shell and the port do per decrypted uplink packet: the core's receive with a
/// reused output buffer, then for each receiver's packet (with an SRTP profile) SRTP protect in place with that
/// receiver's context and the copy into the port's ``SendBufferRing`` (the buffer is dropped as a socket write would
/// release it), then the array back to the core's pool, as ``MeetingMedia`` gives it back. ``runTimers()`` runs
/// what the core's deadline asks for (pacer, feedback, reports), which the shell runs from its timer, off the packet
/// path; its packets take the same way out.
///
/// Part of the CLI, not of the server library: it reaches the media core through its `package` interface.
/// Threading: one thread.
final class VideoForwardingBenchmark {
    /// How many sessions receive the publisher's stream.
    let receivers: Int
    /// The publisher's packets as the peer connection delivers them (parsed, payloads slices of their datagrams).
    let packets: [RTPPacket]
    /// The meeting's core (tests read its pool).
    let core: MeetingMediaCore
    private var outputs: [MeetingMediaOutput] = []
    /// Each session's outbound SRTP context, by connection number (the publisher first); empty without SRTP.
    private let contexts: [any SRTPContext]
    private var ring = SendBufferRing(allocator: ByteBufferAllocator())
    private var now: NIODeadline
    private static let packetInterval = TimeAmount.milliseconds(4)

    /// Sets up the meeting and builds `packetCount` packets of 30 fps VP8 frames of `frameSize` bytes (the first a
    /// key frame) in `payloadSize`-byte payloads, with the transport-wide sequence number extension. With
    /// `profile`, each receiver's packets are protected and copied to the socket's ring as the server does; without,
    /// only the core runs (its arrays still go back to its pool).
    init(receivers: Int, packetCount: Int, frameSize: Int = 5_000, payloadSize: Int = 1_100,
                profile: SRTPProfile? = .aeadAES128GCM) throws {
        precondition(receivers > 0 && packetCount > 0, "a benchmark forwards at least one packet to one receiver")
        self.receivers = receivers
        contexts = try profile.map { profile in
            // One per session, the publisher's first: the audio mix goes to every attendee.
            try (0...receivers).map { index in
                try OpenSSLSRTPContext(profile: profile, masterKey: [UInt8](repeating: UInt8(index & 0xFF), count: profile.keyLength),
                                       masterSalt: [UInt8](repeating: 7, count: profile.saltLength))
            }
        } ?? []
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
    func forward(_ index: Int) -> Int {
        now = now + Self.packetInterval
        core.receive(packets[index], from: SignalingConnectionID(1), now: now, into: &outputs)
        return sendDraining(&outputs)
    }

    /// Runs the core's timers that are due (the pacer's next packets, feedback, reports, the audio mix) and returns
    /// the RTP packets they sent.
    func runTimers() -> Int {
        guard let due = core.nextDeadline, due <= now else { return 0 }
        var outputs = core.tick(now: now)
        return sendDraining(&outputs)
    }

    /// How many arrays the core's pool allocated because it had none to give, and how many came back beyond its
    /// limit or too small and were let go.
    var poolMisses: (freshAllocations: Int, released: Int) {
        (core.datagramPool.freshAllocations, core.datagramPool.released)
    }

    /// Sends the RTP packets of `outputs` the way out of the server (each moved out, so it stays unshared) and
    /// leaves the list empty with its capacity; returns how many were video (the audio mix, which the core's timer
    /// also sends to every attendee, goes out the same way but is not counted).
    private func sendDraining(_ outputs: inout [MeetingMediaOutput]) -> Int {
        var sent = 0
        outputs.reverse()
        while let output = outputs.popLast() {
            guard case .rtp(let receiver, let packet) = consume output else { continue }
            if packet.count > 1, packet[1] & 0x7F != Self.audioPayloadType { sent += 1 }
            core.recycle(transmit(packet, to: receiver))
        }
        return sent
    }

    /// The Opus payload type of the benchmark's offers.
    static let audioPayloadType: UInt8 = 111

    /// What `PeerConnection.sendRTP` and the port's outbox do with one packet: protect in place, copy into the ring.
    private func transmit(_ packet: consuming [UInt8], to receiver: SignalingConnectionID) -> [UInt8] {
        var datagram = consume packet
        guard !contexts.isEmpty else { return datagram }
        try? contexts[Int(receiver.rawValue) - 1].protectRTP(&datagram)
        _ = ring.buffer(holding: datagram)
        return datagram
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
