/// Decoders for the header extensions WebRTC peers negotiate, applied to a packet's raw extension value.
///
/// Ids come from the SDP's `a=extmap` lines; these functions only interpret the bytes.
public enum RTPHeaderExtensionValue {
    /// `urn:ietf:params:rtp-hdrext:ssrc-audio-level` (RFC 6464): voice activity flag and level in -dBov (0 loudest,
    /// 127 silence).
    public static func audioLevel(_ value: [UInt8]) -> (voice: Bool, level: UInt8)? { audioLevel(value[...]) }

    /// ``audioLevel(_:)-4e0ql`` of a value read in place (``RTPPacket/extensionBytes(id:)``).
    public static func audioLevel(_ value: ArraySlice<UInt8>) -> (voice: Bool, level: UInt8)? {
        guard let byte = value.first else { return nil }
        return (byte & 0x80 != 0, byte & 0x7F)
    }

    /// `http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time`: 24-bit 6.18 fixed-point seconds.
    public static func absoluteSendTime(_ value: [UInt8]) -> UInt32? {
        guard value.count == 3 else { return nil }
        return UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2])
    }

    /// `draft-holmer-rmcat-transport-wide-cc-extensions-01`: the transport-wide sequence number.
    public static func transportSequenceNumber(_ value: [UInt8]) -> UInt16? { transportSequenceNumber(value[...]) }

    /// ``transportSequenceNumber(_:)-5ouxq`` of a value read in place (``RTPPacket/extensionBytes(id:)``).
    public static func transportSequenceNumber(_ value: ArraySlice<UInt8>) -> UInt16? {
        guard value.count == 2 else { return nil }
        return UInt16(value[value.startIndex]) << 8 | UInt16(value[value.startIndex + 1])
    }

    /// `urn:ietf:params:rtp-hdrext:sdes:mid`, `rtp-stream-id` and `repaired-rtp-stream-id`: short identifier strings.
    public static func identifier(_ value: [UInt8]) -> String? {
        // Senders may pad with zero bytes; identifiers are RFC 8852 tokens (letters, digits, - and _).
        let trimmed = value.prefix { $0 != 0 }
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: trimmed, as: UTF8.self)
    }

    /// Encodes an audio level value (the inverse of ``audioLevel(_:)``); levels above 127 are clamped.
    public static func audioLevelValue(voice: Bool, level: UInt8) -> [UInt8] {
        [(voice ? 0x80 : 0) | min(level, 127)]
    }
}
