import CarillonMedia
import CarillonRTC
import Foundation
import NIOCore

/// The parsers under fuzzing, each with the invariants it must keep on any input: no crash, and what parses must
/// serialise to something that parses again to the same value. `srtp` feeds ``OpenSSLSRTPContext``.
enum FuzzTarget: String, CaseIterable {
    case stun, rtp, rtcp, sdp, vp8, srtp

    /// Runs one input through the target's parser; traps when an invariant breaks so the fuzzer records the input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .stun:
            guard let message = try? STUNMessage(parsing: bytes) else { return }
            _ = STUNMessage.verifyIntegrity(bytes, key: Array("fuzz-password".utf8))
            _ = STUNMessage.verifyFingerprint(bytes)
            let encoded = message.encoded()
            precondition((try? STUNMessage(parsing: encoded)) != nil, "re-encoded STUN message does not parse")
        case .rtp:
            let header = try? RTPHeader(reading: bytes)
            guard let packet = try? RTPPacket(parsing: bytes) else {
                precondition(header == nil, "RTPHeader accepted what RTPPacket rejects")
                return
            }
            precondition(header?.ssrc == packet.ssrc, "RTPHeader and RTPPacket disagree")
            let reparsed = try? RTPPacket(parsing: packet.serialized())
            precondition(reparsed?.ssrc == packet.ssrc && reparsed?.payload == packet.payload,
                         "serialised RTP packet does not parse back")
        case .rtcp:
            guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
            let serialized = packets.flatMap { $0.serialized() }
            precondition((try? RTCPPacket.parseCompound(serialized)) != nil, "serialised RTCP does not parse back")
        case .sdp:
            guard let text = String(validating: bytes, as: UTF8.self),
                  let description = try? SessionDescription(parsing: text) else { return }
            let again = try? SessionDescription(parsing: description.serialized)
            if again != description {
                // Show what changed, for whoever replays the input.
                var first = "", second = ""
                dump(description, to: &first)
                dump(again, to: &second)
                let report = "first serialisation:\n\(description.serialized)\nsecond:\n\(again?.serialized ?? "(does not parse)")\n"
                    + "first model:\n\(first)\nsecond model:\n\(second)\n"
                FileHandle.standardError.write(Data(report.utf8))
            }
            precondition(again == description, "SDP does not survive serialise and parse")
        case .vp8:
            // A VP8 RTP payload: the descriptor must round-trip, and the assembler must take anything.
            if let descriptor = try? VP8PayloadDescriptor(parsing: bytes[...]) {
                var written: [UInt8] = []
                descriptor.write(to: &written)
                written += bytes[descriptor.length...]
                precondition((try? VP8PayloadDescriptor(parsing: written[...])) == descriptor,
                             "VP8 descriptor does not survive write and parse")
                _ = VP8PayloadDescriptor.keyFrameSize(payload: bytes[...], descriptorLength: descriptor.length)
            }
            var assembler = VP8FrameAssembler(configuration: .init(maximumBufferedPackets: 8))
            let now = NIODeadline.uptimeNanoseconds(0)
            var offset = 0
            while offset + 4 <= bytes.count {
                // Each chunk: sequence number, marker, length, then that many payload bytes.
                let length = Int(bytes[offset + 3])
                let end = min(bytes.count, offset + 4 + length)
                _ = assembler.insert(sequenceNumber: UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]),
                                     timestamp: UInt32(bytes[offset] & 0x03), marker: bytes[offset + 2] & 1 == 1,
                                     payload: bytes[(offset + 4)..<end], now: now)
                offset = end
            }
        case .srtp:
            Self.runSRTP(bytes)
        }
    }

    /// The first byte picks the profile (byte % 3) and what to do with the rest (byte / 3 % 4): unprotect it as
    /// SRTP or SRTCP (any input must be rejected cleanly, never crash), or protect it as RTP or RTCP and check that
    /// a receiver gets it back exactly once and rejects it with a flipped byte. Contexts are made per input, so a
    /// saved input replays the same way.
    private static func runSRTP(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let profile = SRTPProfile.allCases[Int(selector) % SRTPProfile.allCases.count]
        let key = [UInt8](repeating: 0x5A, count: profile.keyLength), salt = [UInt8](repeating: 0xA5, count: profile.saltLength)
        guard let sender = try? OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt),
              let receiver = try? OpenSSLSRTPContext(profile: profile, masterKey: key, masterSalt: salt) else {
            preconditionFailure("SRTP contexts could not be made")
        }
        let packet = Array(bytes.dropFirst())
        var datagram = packet
        switch Int(selector) / 3 % 4 {
        case 0:
            _ = try? receiver.unprotectRTP(&datagram)
        case 1:
            _ = try? receiver.unprotectRTCP(&datagram)
        case 2:
            guard (try? sender.protectRTP(&datagram)) != nil else { return }
            checkRoundTrip(packet, datagram, tamperAt: Int(selector) % datagram.count) {
                (bytes: inout [UInt8]) throws(SRTPError) in try receiver.unprotectRTP(&bytes)
            }
        default:
            guard (try? sender.protectRTCP(&datagram)) != nil else { return }
            checkRoundTrip(packet, datagram, tamperAt: Int(selector) % datagram.count) {
                (bytes: inout [UInt8]) throws(SRTPError) in try receiver.unprotectRTCP(&bytes)
            }
        }
    }

    private static func checkRoundTrip(_ packet: [UInt8], _ datagram: [UInt8], tamperAt position: Int,
                                       _ unprotect: (inout [UInt8]) throws(SRTPError) -> Void) {
        var tampered = datagram
        tampered[position] ^= 0x01
        // A flipped byte in the sequence number or SSRC may also read as a replay; either way it is refused.
        precondition((try? unprotect(&tampered)) == nil, "a tampered SRTP datagram was accepted")
        var opened = datagram
        do {
            try unprotect(&opened)
        } catch {
            preconditionFailure("a protected packet did not unprotect: \(error)")
        }
        precondition(opened == packet, "unprotect did not give back the protected packet")
        var replayed = datagram
        precondition((try? unprotect(&replayed)) == nil, "a replayed SRTP datagram was accepted")
    }
}
