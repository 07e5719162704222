/// An RTP packet (RFC 3550 §5.1) with its header extensions (RFC 8285 one- and two-byte forms), parsed strictly.
///
/// Parsing copies nothing and allocates nothing (no CSRCs is the common case; a packet with CSRCs allocates their
/// list): the payload and the extension elements are slices of the datagram, checked when parsed and read in place
/// by ``extensionBytes(id:)``. ``extensions`` decodes them into a list (one allocation per value) for code off the
/// per-packet paths.
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
    /// Payload bytes (padding removed).
    public var payload: ArraySlice<UInt8>
    /// The extension elements as on the wire, padding included: `0xBEDE` one-byte or `0x100X` two-byte form (RFC
    /// 8285 §4.2–4.3), empty when the packet has none (or an extension block of another profile, which RFC 3550
    /// lets a receiver ignore).
    private var extensionElements: ArraySlice<UInt8>
    private var twoByteExtensions: Bool

    /// Creates a packet.
    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
                csrcs: [UInt32] = [], extensions: [(id: UInt8, value: [UInt8])] = [], payload: ArraySlice<UInt8>) {
        self.marker = marker
        self.payloadType = payloadType & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.payload = payload
        (extensionElements, twoByteExtensions) = Self.encode(extensions)
    }

    /// Header extensions as (id, value), in wire order. Reading decodes them (an allocation per value); setting
    /// encodes them (the one-byte form when every id is 1-14 and every value 1-16 bytes, else the two-byte form).
    public var extensions: [(id: UInt8, value: [UInt8])] {
        get {
            var result: [(id: UInt8, value: [UInt8])] = []
            forEachExtension { id, value in
                result.append((id, Array(value)))
                return true
            }
            return result
        }
        set { (extensionElements, twoByteExtensions) = Self.encode(newValue) }
    }

    public static func == (lhs: RTPPacket, rhs: RTPPacket) -> Bool {
        lhs.marker == rhs.marker && lhs.payloadType == rhs.payloadType && lhs.sequenceNumber == rhs.sequenceNumber
            && lhs.timestamp == rhs.timestamp && lhs.ssrc == rhs.ssrc && lhs.csrcs == rhs.csrcs
            && lhs.extensions.map(\.id) == rhs.extensions.map(\.id) && lhs.extensions.map(\.value) == rhs.extensions.map(\.value)
            && lhs.payload.elementsEqual(rhs.payload)
    }

    /// The value of extension `id` (the id negotiated by `a=extmap` for a URI), if present, as a slice of the packet
    /// (no copy). Its indices are the datagram's: iterate it or index from `startIndex`.
    public func extensionBytes(id: UInt8) -> ArraySlice<UInt8>? {
        var found: ArraySlice<UInt8>?
        forEachExtension { elementId, value in
            if elementId == id { found = value }
            return found == nil
        }
        return found
    }

    /// The value of extension `id` as a new array, if present (``extensionBytes(id:)`` reads it without copying).
    public func extensionValue(id: UInt8) -> [UInt8]? { extensionBytes(id: id).map(Array.init) }

    /// Calls `body` with each extension in wire order until it returns false. The elements were checked when the
    /// packet was parsed or built, so the walk cannot fail.
    private func forEachExtension(_ body: (UInt8, ArraySlice<UInt8>) -> Bool) {
        var index = extensionElements.startIndex
        let end = extensionElements.endIndex
        while index < end {
            let first = extensionElements[index]
            if twoByteExtensions {
                if first == 0 { index += 1; continue }
                let length = Int(extensionElements[index + 1])
                guard body(first, extensionElements[(index + 2)..<(index + 2 + length)]) else { return }
                index += 2 + length
            } else {
                // ID 0 is padding (RFC 8285 §4.2): skip the byte whatever its length nibble says, as libwebrtc does.
                if first >> 4 == 0 { index += 1; continue }
                if first >> 4 == 15 { return }  // reserved: stop parsing (RFC 8285 §4.2)
                let length = Int(first & 0x0F) + 1
                guard body(first >> 4, extensionElements[(index + 1)..<(index + 1 + length)]) else { return }
                index += 1 + length
            }
        }
    }

    // MARK: Parsing

    /// Parses a datagram: ``RTPHeader``'s checks, then the CSRC list and slices of the datagram.
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        let header = try RTPHeader(reading: bytes)
        marker = header.marker
        payloadType = header.payloadType
        sequenceNumber = header.sequenceNumber
        timestamp = header.timestamp
        ssrc = header.ssrc
        let csrcCount = Int(bytes[0] & 0x0F)
        csrcs = csrcCount == 0 ? [] : (0..<csrcCount).map { NetworkBytes.readUInt32(bytes, 12 + 4 * $0) }
        // Other profiles than RFC 8285's leave no block: ignored, as RFC 3550 allows.
        extensionElements = header.extensionBlock.map { bytes[$0] } ?? []
        twoByteExtensions = !header.oneByteExtensions
        payload = bytes[header.payloadRange]
    }

    /// The wire elements of `extensions` (unpadded) and whether they use the two-byte form.
    private static func encode(_ extensions: [(id: UInt8, value: [UInt8])]) -> (ArraySlice<UInt8>, Bool) {
        guard !extensions.isEmpty else { return ([], false) }
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
        return (block[...], !oneByte)
    }

    // MARK: Serialising

    /// The wire bytes: the header, the extensions in the form they were parsed or built in, padded to 32 bits, and
    /// the payload.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        serialize(into: &bytes)
        return bytes
    }

    /// Writes the wire bytes into `bytes`, emptied first with its storage kept (a pooled array), with room for
    /// `spareCapacity` more bytes after them (an SRTP tag, so protection does not grow the array).
    public func serialize(into bytes: inout [UInt8], spareCapacity: Int = 0) {
        bytes.removeAll(keepingCapacity: true)
        let padding = (4 - extensionElements.count % 4) % 4
        bytes.reserveCapacity(12 + 4 * csrcs.count + 4 + extensionElements.count + padding + payload.count
                              + spareCapacity)
        bytes.append(0x80 | (extensionElements.isEmpty ? 0 : 0x10) | UInt8(csrcs.count & 0x0F))
        bytes.append((marker ? 0x80 : 0) | payloadType)
        bytes.append(UInt8(sequenceNumber >> 8))
        bytes.append(UInt8(sequenceNumber & 0xFF))
        NetworkBytes.append(timestamp, to: &bytes)
        NetworkBytes.append(ssrc, to: &bytes)
        for csrc in csrcs.prefix(15) { NetworkBytes.append(csrc, to: &bytes) }
        if !extensionElements.isEmpty {
            let words = (extensionElements.count + padding) / 4
            bytes.append(twoByteExtensions ? 0x10 : 0xBE)
            bytes.append(twoByteExtensions ? 0x00 : 0xDE)
            bytes.append(UInt8(words >> 8))
            bytes.append(UInt8(words & 0xFF))
            bytes.append(contentsOf: extensionElements)
            bytes.append(contentsOf: repeatElement(0, count: padding))
        }
        bytes.append(contentsOf: payload)
    }
}
