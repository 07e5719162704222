/// Retransmission in an RTX stream (RFC 4588): the sender wraps a packet from its send history with the RTX SSRC,
/// the RTX payload type paired by `apt` and a sequence number of the RTX stream, the original sequence number (OSN)
/// first in the payload; the receiver unwraps it back into the original packet.
///
/// Header extensions and CSRCs travel unchanged; padding of the original is dropped. Sans-IO, allocation of one
/// array per packet.
public struct RTXStream: Sendable {
    /// The SSRC of the RTX stream (the second SSRC of `a=ssrc-group:FID`).
    public let ssrc: UInt32
    /// Media payload type to RTX payload type (the reverse of each RTX codec's `apt`).
    public let payloadTypes: [UInt8: UInt8]
    /// The next RTX sequence number.
    public private(set) var nextSequenceNumber: UInt16

    /// Creates the sending side of an RTX stream.
    public init(ssrc: UInt32, payloadTypes: [UInt8: UInt8], firstSequenceNumber: UInt16 = .random(in: 0...UInt16.max)) {
        self.ssrc = ssrc
        self.payloadTypes = payloadTypes
        self.nextSequenceNumber = firstSequenceNumber
    }

    /// Wraps an original RTP packet (plain, before SRTP) for retransmission; nil when its payload type has no RTX
    /// pairing or the packet does not parse.
    public mutating func wrap(_ original: [UInt8]) -> [UInt8]? {
        guard let header = try? RTPHeader(reading: original), let rtxType = payloadTypes[header.payloadType] else {
            return nil
        }
        var packet = [UInt8]()
        packet.reserveCapacity(original.count + 2 + 32)
        packet += original[..<header.payloadRange.lowerBound]
        packet[0] &= ~0x20  // the original's padding is not carried
        var rewritten = header
        rewritten.payloadType = rtxType
        rewritten.sequenceNumber = nextSequenceNumber
        rewritten.ssrc = ssrc
        rewritten.write(into: &packet)
        packet.append(UInt8(header.sequenceNumber >> 8))
        packet.append(UInt8(truncatingIfNeeded: header.sequenceNumber))
        packet += original[header.payloadRange]
        nextSequenceNumber &+= 1
        return packet
    }

    /// A padding-only packet of the RTX stream, as a sender probing for bandwidth sends (it repairs nothing: no
    /// original sequence number, no payload): the RTX payload type paired with `mediaPayloadType`, the next RTX
    /// sequence number, `timestamp`, and `count` octets of RTP padding (1-255; the last one holds the count). With
    /// `transportCCExtensionId`, a one-byte-form extension with a zero transport-wide sequence number, to be written
    /// as the packet leaves. `tagRoom` bytes of capacity are reserved so SRTP protects it in place. Nil when
    /// `mediaPayloadType` has no RTX pairing. One array.
    public mutating func paddingPacket(mediaPayloadType: UInt8, timestamp: UInt32, count: UInt8,
                                       transportCCExtensionId: UInt8?,
                                       tagRoom: Int = SRTPProfile.maximumRTPTrailerLength) -> [UInt8]? {
        guard let rtxType = payloadTypes[mediaPayloadType], count > 0 else { return nil }
        var packet = [UInt8]()
        packet.reserveCapacity(20 + Int(count) + tagRoom)
        packet.append(0xA0 | (transportCCExtensionId == nil ? 0 : 0x10))
        packet.append(rtxType & 0x7F)
        packet.append(UInt8(nextSequenceNumber >> 8))
        packet.append(UInt8(truncatingIfNeeded: nextSequenceNumber))
        for shift in stride(from: 24, through: 0, by: -8) { packet.append(UInt8(truncatingIfNeeded: timestamp >> shift)) }
        for shift in stride(from: 24, through: 0, by: -8) { packet.append(UInt8(truncatingIfNeeded: ssrc >> shift)) }
        if let id = transportCCExtensionId {
            packet += [0xBE, 0xDE, 0, 1, id << 4 | 1, 0, 0, 0]
        }
        packet += repeatElement(0, count: Int(count) - 1)
        packet.append(count)
        nextSequenceNumber &+= 1
        return packet
    }

    /// Restores the original packet from a received RTX packet: `mediaSSRC` is the stream it repairs and
    /// `mediaPayloadTypes` maps RTX payload types to their `apt`. Nil for a malformed or unpaired packet (an empty
    /// RTX payload is padding used for probing and carries nothing).
    public static func unwrap(_ rtx: [UInt8], mediaSSRC: UInt32, mediaPayloadTypes: [UInt8: UInt8]) -> [UInt8]? {
        guard let header = try? RTPHeader(reading: rtx), header.payloadRange.count >= 2,
              let mediaType = mediaPayloadTypes[header.payloadType]
        else { return nil }
        let osnAt = header.payloadRange.lowerBound
        var packet = [UInt8]()
        packet.reserveCapacity(rtx.count)
        packet += rtx[..<osnAt]
        packet[0] &= ~0x20
        var original = header
        original.payloadType = mediaType
        original.sequenceNumber = UInt16(rtx[osnAt]) << 8 | UInt16(rtx[osnAt + 1])
        original.ssrc = mediaSSRC
        original.write(into: &packet)
        packet += rtx[(osnAt + 2)..<header.payloadRange.upperBound]
        return packet
    }

    /// Restores the original of an already parsed RTX packet without copying its payload: the original sequence
    /// number from the payload's first two bytes, `mediaSSRC` and `mediaPayloadType`; extensions carried over. Nil
    /// for an RTX payload of two bytes or fewer (padding used for probing carries nothing).
    public static func unwrap(_ rtx: RTPPacket, mediaSSRC: UInt32, mediaPayloadType: UInt8) -> RTPPacket? {
        guard rtx.payload.count > 2 else { return nil }
        let start = rtx.payload.startIndex
        // A copy of the parsed packet keeps its extension elements as they are: nothing is decoded or allocated.
        var original = rtx
        original.payloadType = mediaPayloadType & 0x7F
        original.sequenceNumber = UInt16(rtx.payload[start]) << 8 | UInt16(rtx.payload[start + 1])
        original.ssrc = mediaSSRC
        original.payload = rtx.payload.dropFirst(2)
        return original
    }
}
