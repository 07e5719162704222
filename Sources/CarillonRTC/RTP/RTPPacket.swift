/// An RTP packet (RFC 3550 §5.1) with its header extensions (RFC 8285 one- and two-byte forms), parsed strictly.
///
/// The payload is a slice of the datagram it was parsed from: parsing copies nothing but the small extension list.
public struct RTPPacket: Sendable, Equatable {
    /// Whether the marker bit is set (end of a video frame, start of a talk spurt).
    public var marker: Bool
    /// Payload type, 0-127.
    public var payloadType: UInt8
    /// Sequence number.
    public var sequenceNumber: UInt16
    /// Media timestamp in clock-rate units.
    public var timestamp: UInt32
    /// Synchronisation source.
    public var ssrc: UInt32
    /// Contributing sources.
    public var csrcs: [UInt32]
    /// Header extensions as (id, value), in wire order.
    public var extensions: [(id: UInt8, value: [UInt8])]
    /// Payload bytes (padding removed).
    public var payload: ArraySlice<UInt8>

    /// Creates a packet.
    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                csrcs: [UInt32] = [], extensions: [(id: UInt8, value: [UInt8])] = [], payload: ArraySlice<UInt8>) {
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensions = extensions
        self.payload = payload
    }

    public static func == (lhs: RTPPacket, rhs: RTPPacket) -> Bool {
        lhs.marker == rhs.marker && lhs.payloadType == rhs.payloadType && lhs.sequenceNumber == rhs.sequenceNumber
            && lhs.timestamp == rhs.timestamp && lhs.ssrc == rhs.ssrc && lhs.csrcs == rhs.csrcs
            && lhs.extensions.map(\.id) == rhs.extensions.map(\.id) && lhs.extensions.map(\.value) == rhs.extensions.map(\.value)
            && lhs.payload.elementsEqual(rhs.payload)
    }

    /// The value of extension `id` (the id negotiated by `a=extmap` for a URI), if present.
    public func extensionValue(id: UInt8) -> [UInt8]? { extensions.first { $0.id == id }?.value }

    // MARK: Parsing

    /// Parses a datagram.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        guard bytes.count >= 12 else { throw .truncated }
        guard bytes[0] >> 6 == 2 else { throw .badVersion }
        let hasPadding = bytes[0] & 0x20 != 0
        let hasExtension = bytes[0] & 0x10 != 0
        let csrcCount = Int(bytes[0] & 0x0F)
        marker = bytes[1] & 0x80 != 0
        payloadType = bytes[1] & 0x7F
        sequenceNumber = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        timestamp = NetworkBytes.readUInt32(bytes, 4)
        ssrc = NetworkBytes.readUInt32(bytes, 8)
        var offset = 12
        guard bytes.count >= offset + 4 * csrcCount else { throw .truncated }
        csrcs = (0..<csrcCount).map { NetworkBytes.readUInt32(bytes, 12 + 4 * $0) }
        offset += 4 * csrcCount
        extensions = []
        if hasExtension {
            guard bytes.count >= offset + 4 else { throw .truncated }
            let profile = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let length = 4 * (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
            let start = offset + 4
            guard bytes.count >= start + length else { throw .truncated }
            extensions = try Self.extensions(profile: profile, bytes[start..<(start + length)])
            offset = start + length
        }
        var end = bytes.count
        if hasPadding {
            guard let count = bytes.last, count > 0, Int(count) <= end - offset else { throw .badPadding }
            end -= Int(count)
        }
        payload = bytes[offset..<end]
    }

    private static func extensions(profile: UInt16, _ block: ArraySlice<UInt8>) throws(RTPError) -> [(id: UInt8, value: [UInt8])] {
        var result: [(id: UInt8, value: [UInt8])] = []
        // Every element takes at least 2 bytes: one allocation for the list instead of one per doubling.
        result.reserveCapacity(min(block.count / 2, 16))
        var index = block.startIndex
        if profile == 0xBEDE {
            while index < block.endIndex {
                let byte = block[index]
                // ID 0 is padding (RFC 8285 §4.2): skip the byte whatever its length nibble says, as libwebrtc does.
                if byte >> 4 == 0 { index += 1; continue }
                let id = byte >> 4
                guard id != 15 else { break }  // reserved: stop parsing (RFC 8285 §4.2)
                let length = Int(byte & 0x0F) + 1
                guard index + 1 + length <= block.endIndex else { throw .badExtension }
                result.append((id, Array(block[(index + 1)..<(index + 1 + length)])))
                index += 1 + length
            }
        } else if profile & 0xFFF0 == 0x1000 {
            while index < block.endIndex {
                let id = block[index]
                if id == 0 { index += 1; continue }
                guard index + 2 <= block.endIndex else { throw .badExtension }
                let length = Int(block[index + 1])
                guard index + 2 + length <= block.endIndex else { throw .badExtension }
                result.append((id, Array(block[(index + 2)..<(index + 2 + length)])))
                index += 2 + length
            }
        }
        // Other profiles are not RFC 8285 extensions: ignored, as RFC 3550 allows.
        return result
    }

    // MARK: Serialising

    /// The wire bytes; extensions use the one-byte form when every id is 1-14 and every value 1-16 bytes.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + 4 * csrcs.count + 64 + payload.count)
        bytes.append(0x80 | (extensions.isEmpty ? 0 : 0x10) | UInt8(csrcs.count & 0x0F))
        bytes.append((marker ? 0x80 : 0) | payloadType)
        bytes.append(UInt8(sequenceNumber >> 8))
        bytes.append(UInt8(sequenceNumber & 0xFF))
        NetworkBytes.append(timestamp, to: &bytes)
        NetworkBytes.append(ssrc, to: &bytes)
        for csrc in csrcs.prefix(15) { NetworkBytes.append(csrc, to: &bytes) }
        if !extensions.isEmpty {
            let oneByte = extensions.allSatisfy { (1...14).contains($0.id) && (1...16).contains($0.value.count) }
            var block: [UInt8] = []
            for (id, value) in extensions {
                if oneByte {
                    block.append(id << 4 | UInt8(value.count - 1))
                } else {
                    block.append(id)
                    block.append(UInt8(min(value.count, 255)))
                }
                block += value.prefix(255)
            }
            block += repeatElement(0, count: (4 - block.count % 4) % 4)
            bytes += oneByte ? [0xBE, 0xDE] : [0x10, 0x00]
            bytes.append(UInt8((block.count / 4) >> 8))
            bytes.append(UInt8(block.count / 4 & 0xFF))
            bytes += block
        }
        bytes += payload
        return bytes
    }
}
