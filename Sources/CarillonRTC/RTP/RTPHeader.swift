/// The fixed part of an RTP header, read and rewritten in place without copying the packet: what a forwarder needs
/// (the full ``RTPPacket`` parse allocates for CSRCs and extensions).
public struct RTPHeader: Sendable, Equatable {
    /// Marker bit.
    public var marker: Bool
    /// Payload type (7 bits).
    public var payloadType: UInt8
    /// Sequence number.
    public var sequenceNumber: UInt16
    /// Media timestamp.
    public var timestamp: UInt32
    /// Synchronisation source.
    public var ssrc: UInt32
    /// Where the header extension block's elements start and end, if the packet has one.
    public let extensionBlock: Range<Int>?
    /// Whether the extension block uses the one-byte form (0xBEDE); otherwise two-byte (0x100X).
    public let oneByteExtensions: Bool
    /// Where the payload starts and ends (padding excluded).
    public let payloadRange: Range<Int>

    /// Reads and validates the header of `bytes` (version, lengths, padding) without allocating.
    public init(reading bytes: [UInt8]) throws(RTPError) {
        guard bytes.count >= 12 else { throw .truncated }
        guard bytes[0] >> 6 == 2 else { throw .badVersion }
        marker = bytes[1] & 0x80 != 0
        payloadType = bytes[1] & 0x7F
        sequenceNumber = NetworkBytes.readUInt16(bytes, 2)
        timestamp = NetworkBytes.readUInt32(bytes, 4)
        ssrc = NetworkBytes.readUInt32(bytes, 8)
        var offset = 12 + 4 * Int(bytes[0] & 0x0F)
        guard bytes.count >= offset else { throw .truncated }
        var block: Range<Int>?
        var oneByte = false
        if bytes[0] & 0x10 != 0 {
            guard bytes.count >= offset + 4 else { throw .truncated }
            let profile = NetworkBytes.readUInt16(bytes, offset)
            let length = 4 * Int(NetworkBytes.readUInt16(bytes, offset + 2))
            guard bytes.count >= offset + 4 + length else { throw .truncated }
            if profile == 0xBEDE || profile & 0xFFF0 == 0x1000 {
                block = (offset + 4)..<(offset + 4 + length)
                oneByte = profile == 0xBEDE
                try Self.validateElements(bytes, block: block!, oneByte: oneByte)
            }
            offset += 4 + length
        }
        var end = bytes.count
        if bytes[0] & 0x20 != 0 {
            guard let count = bytes.last, count > 0, Int(count) <= end - offset else { throw .badPadding }
            end -= Int(count)
        }
        extensionBlock = block
        oneByteExtensions = oneByte
        payloadRange = offset..<end
    }

    /// Checks that every extension element fits its block (the same rule as ``RTPPacket``'s parser).
    private static func validateElements(_ bytes: [UInt8], block: Range<Int>, oneByte: Bool) throws(RTPError) {
        var index = block.lowerBound
        while index < block.upperBound {
            let byte = bytes[index]
            if byte == 0 || (oneByte && byte >> 4 == 0) {
                index += 1
                continue
            }
            if oneByte {
                if byte >> 4 == 15 { return }
                let end = index + 1 + Int(byte & 0x0F) + 1
                guard end <= block.upperBound else { throw .badExtension }
                index = end
            } else {
                guard index + 2 <= block.upperBound else { throw .badExtension }
                let end = index + 2 + Int(bytes[index + 1])
                guard end <= block.upperBound else { throw .badExtension }
                index = end
            }
        }
    }

    /// Writes marker, payload type, sequence number, timestamp and SSRC back over the first 12 bytes of `bytes`.
    public func write(into bytes: inout [UInt8]) {
        precondition(bytes.count >= 12, "RTP header rewrite on a packet shorter than 12 bytes")
        bytes[1] = (marker ? 0x80 : 0) | (payloadType & 0x7F)
        bytes[2] = UInt8(sequenceNumber >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: sequenceNumber)
        for index in 0..<4 {
            bytes[4 + index] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * index))
        }
    }

    /// Where the value of header extension `id` lies in `bytes`, without copying; nil when absent or malformed.
    public func extensionRange(id: UInt8, in bytes: [UInt8]) -> Range<Int>? {
        guard let block = extensionBlock, block.upperBound <= bytes.count else { return nil }
        var index = block.lowerBound
        while index < block.upperBound {
            let byte = bytes[index]
            if byte == 0 || (oneByteExtensions && byte >> 4 == 0) {
                index += 1
                continue
            }
            let elementID: UInt8, length: Int, start: Int
            if oneByteExtensions {
                elementID = byte >> 4
                if elementID == 15 { return nil }
                length = Int(byte & 0x0F) + 1
                start = index + 1
            } else {
                guard index + 2 <= block.upperBound else { return nil }
                elementID = byte
                length = Int(bytes[index + 1])
                start = index + 2
            }
            guard start + length <= block.upperBound else { return nil }
            if elementID == id { return start..<(start + length) }
            index = start + length
        }
        return nil
    }
}
