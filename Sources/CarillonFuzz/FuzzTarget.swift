import CarillonRTC
import Foundation

/// The parsers under fuzzing, each with the invariants it must keep on any input: no crash, and what parses must
/// serialise to something that parses again to the same value.
enum FuzzTarget: String, CaseIterable {
    case stun, rtp, rtcp, sdp

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
        }
    }
}
