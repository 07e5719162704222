import NIOCore

/// A transport-wide congestion control feedback message (RTCP PT 205, FMT 15,
/// draft-holmer-rmcat-transport-wide-cc-extensions-01): which packets of a run of transport-wide sequence numbers
/// arrived, and when.
///
/// Times are kept at the wire's resolution: a 24-bit reference time in 64 ms units and, per received packet, an
/// arrival time in 250 µs ticks after that reference. Build one with
/// ``init(senderSSRC:mediaSSRC:baseSequenceNumber:referenceTime:feedbackPacketCount:)`` and
/// ``addReceived(sequenceNumber:arrivalTicks:)``, which refuses packets the format cannot carry; a message needs at least
/// one result to be valid on the wire. The encoder picks run-length, 1-bit and 2-bit status chunks to keep the packet small.
public struct TransportFeedback: Sendable, Equatable {
    /// The outcome for one transport-wide sequence number.
    public struct PacketResult: Sendable, Equatable {
        /// The transport-wide sequence number.
        public var sequenceNumber: UInt16
        /// Arrival time in 250 µs ticks after the reference time, or nil when the packet did not arrive.
        public var arrivalTicks: Int64?

        /// Creates a result.
        public init(sequenceNumber: UInt16, arrivalTicks: Int64?) {
            self.sequenceNumber = sequenceNumber
            self.arrivalTicks = arrivalTicks
        }

        /// Whether the packet arrived.
        public var isReceived: Bool { arrivalTicks != nil }

        /// Arrival time after the reference time, or nil when the packet did not arrive.
        public var arrivalOffset: TimeAmount? { arrivalTicks.map { .nanoseconds($0 * TransportFeedback.tickNanoseconds) } }
    }

    /// Nanoseconds in one receive-delta tick (250 µs).
    public static let tickNanoseconds: Int64 = 250_000
    /// Nanoseconds in one reference-time unit (64 ms, 256 ticks).
    public static let referenceTimeUnitNanoseconds: Int64 = 64_000_000
    /// Ticks in one reference-time unit.
    public static let ticksPerReferenceUnit: Int64 = 256
    /// Most packet results one message carries (the status count is 16 bits).
    public static let maximumPacketCount = 0xFFFF

    /// SSRC of the feedback's sender.
    public var senderSSRC: UInt32
    /// SSRC of the media source (the draft leaves its meaning open; senders commonly put a media SSRC or 0).
    public var mediaSSRC: UInt32
    /// The first sequence number the results cover.
    public private(set) var baseSequenceNumber: UInt16
    /// Reference time in 64 ms units, 24 bits, wrapping.
    public private(set) var referenceTime: UInt32
    /// The feedback message's own counter (wraps at 256), so the media sender can notice lost feedback.
    public var feedbackPacketCount: UInt8
    /// One result per sequence number from ``baseSequenceNumber`` on, in order; the last is always a received packet
    /// when built with ``addReceived(sequenceNumber:arrivalTicks:)``.
    public private(set) var packets: [PacketResult]
    private var lastTicks: Int64 = 0

    /// Creates a message with no results yet; `referenceTime` is reduced to 24 bits.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: UInt32,
                feedbackPacketCount: UInt8) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime & 0xFF_FFFF
        self.feedbackPacketCount = feedbackPacketCount
        self.packets = []
    }

    public static func == (lhs: TransportFeedback, rhs: TransportFeedback) -> Bool {
        lhs.senderSSRC == rhs.senderSSRC && lhs.mediaSSRC == rhs.mediaSSRC && lhs.baseSequenceNumber == rhs.baseSequenceNumber
            && lhs.referenceTime == rhs.referenceTime && lhs.feedbackPacketCount == rhs.feedbackPacketCount
            && lhs.packets == rhs.packets
    }

    /// The sequence number the next result would have.
    public var nextSequenceNumber: UInt16 { baseSequenceNumber &+ UInt16(truncatingIfNeeded: packets.count) }

    /// Appends a received packet, recording the sequence numbers between the previous result (or the base) and this
    /// one as lost.
    ///
    /// Returns false and changes nothing when the packet cannot be carried: it is not ahead of the previous result, the
    /// message would exceed ``maximumPacketCount`` results, or its arrival is more than a signed 16-bit delta
    /// (about ±8.2 s) from the previous received packet's (or from the reference time, for the first one).
    @discardableResult
    public mutating func addReceived(sequenceNumber: UInt16, arrivalTicks: Int64) -> Bool {
        let skipped = Int(sequenceNumber &- nextSequenceNumber)
        guard skipped < 0x8000, packets.count + skipped + 1 <= Self.maximumPacketCount else { return false }
        let delta = arrivalTicks - lastTicks
        guard delta >= Int64(Int16.min), delta <= Int64(Int16.max) else { return false }
        packets.reserveCapacity(packets.count + skipped + 1)
        for _ in 0..<skipped { packets.append(PacketResult(sequenceNumber: nextSequenceNumber, arrivalTicks: nil)) }
        packets.append(PacketResult(sequenceNumber: sequenceNumber, arrivalTicks: arrivalTicks))
        lastTicks = arrivalTicks
        return true
    }

    // MARK: Wire format

    private enum Symbol: UInt8 {
        case notReceived = 0
        case smallDelta = 1
        case largeDelta = 2
    }

    /// Parses the part after the common header; `end` excludes padding.
    init(parsing packet: [UInt8], end: Int) throws(RTCPError) {
        guard end >= 20 else { throw .badLength }
        senderSSRC = NetworkBytes.readUInt32(packet, 4)
        mediaSSRC = NetworkBytes.readUInt32(packet, 8)
        baseSequenceNumber = NetworkBytes.readUInt16(packet, 12)
        let statusCount = Int(NetworkBytes.readUInt16(packet, 14))
        referenceTime = NetworkBytes.readUInt32(packet, 16) >> 8
        feedbackPacketCount = packet[19]
        guard statusCount > 0 else { throw .badField }
        var symbols: [Symbol] = []
        symbols.reserveCapacity(statusCount)
        var offset = 20
        func symbol(_ bits: UInt16) throws(RTCPError) -> Symbol {
            guard let symbol = Symbol(rawValue: UInt8(bits)) else { throw .badField }
            return symbol
        }
        while symbols.count < statusCount {
            guard offset + 2 <= end else { throw .badLength }
            let chunk = NetworkBytes.readUInt16(packet, offset)
            offset += 2
            let wanted = statusCount - symbols.count
            if chunk & 0x8000 == 0 {
                let run = Int(chunk & 0x1FFF)
                guard run <= wanted else { throw .badField }
                let value = try symbol((chunk >> 13) & 0x3)
                for _ in 0..<run { symbols.append(value) }
            } else if chunk & 0x4000 == 0 {
                for index in 0..<min(14, wanted) { symbols.append(try symbol((chunk >> (13 - index)) & 0x1)) }
            } else {
                for index in 0..<min(7, wanted) { symbols.append(try symbol((chunk >> (12 - 2 * index)) & 0x3)) }
            }
        }
        packets = []
        packets.reserveCapacity(statusCount)
        var ticks: Int64 = 0
        for (index, value) in symbols.enumerated() {
            let sequence = baseSequenceNumber &+ UInt16(truncatingIfNeeded: index)
            switch value {
            case .notReceived:
                packets.append(PacketResult(sequenceNumber: sequence, arrivalTicks: nil))
                continue
            case .smallDelta:
                guard offset + 1 <= end else { throw .badLength }
                ticks += Int64(packet[offset])
                offset += 1
            case .largeDelta:
                guard offset + 2 <= end else { throw .badLength }
                ticks += Int64(Int16(bitPattern: NetworkBytes.readUInt16(packet, offset)))
                offset += 2
            }
            packets.append(PacketResult(sequenceNumber: sequence, arrivalTicks: ticks))
        }
        // At most the zero bytes that align the packet to 32 bits may follow.
        guard end - offset < 4, packet[offset..<end].allSatisfy({ $0 == 0 }) else { throw .badLength }
        lastTicks = ticks
    }

    /// Appends everything after the common header, unpadded.
    func appendBody(to bytes: inout [UInt8]) {
        NetworkBytes.append(senderSSRC, to: &bytes)
        NetworkBytes.append(mediaSSRC, to: &bytes)
        NetworkBytes.append(baseSequenceNumber, to: &bytes)
        NetworkBytes.append(UInt16(packets.count), to: &bytes)
        NetworkBytes.append(referenceTime << 8 | UInt32(feedbackPacketCount), to: &bytes)
        var symbols: [Symbol] = []
        symbols.reserveCapacity(packets.count)
        var previous: Int64 = 0
        for result in packets {
            guard let ticks = result.arrivalTicks else {
                symbols.append(.notReceived)
                continue
            }
            symbols.append((0...255).contains(ticks - previous) ? .smallDelta : .largeDelta)
            previous = ticks
        }
        Self.appendChunks(symbols, to: &bytes)
        previous = 0
        for result in packets {
            guard let ticks = result.arrivalTicks else { continue }
            let delta = ticks - previous
            previous = ticks
            if (0...255).contains(delta) {
                bytes.append(UInt8(delta))
            } else {
                NetworkBytes.append(UInt16(bitPattern: Int16(clamping: delta)), to: &bytes)
            }
        }
    }

    /// Encodes status symbols greedily: a run when it covers at least as much as a vector would, a 1-bit vector when
    /// the next 14 symbols need no large delta, otherwise a run of 7 or more or a 2-bit vector.
    private static func appendChunks(_ symbols: [Symbol], to bytes: inout [UInt8]) {
        var index = 0
        while index < symbols.count {
            let remaining = symbols.count - index
            var run = 1
            while run < 0x1FFF, index + run < symbols.count, symbols[index + run] == symbols[index] { run += 1 }
            let oneBitSpan = min(14, remaining)
            let oneBitFits = !symbols[index..<(index + oneBitSpan)].contains(.largeDelta)
            if run >= 14 || run == remaining || (run >= 7 && !oneBitFits) {
                NetworkBytes.append(UInt16(symbols[index].rawValue) << 13 | UInt16(run), to: &bytes)
                index += run
            } else if oneBitFits {
                var chunk: UInt16 = 0x8000
                for offset in 0..<oneBitSpan { chunk |= UInt16(symbols[index + offset].rawValue) << (13 - offset) }
                NetworkBytes.append(chunk, to: &bytes)
                index += oneBitSpan
            } else {
                var chunk: UInt16 = 0xC000
                for offset in 0..<min(7, remaining) { chunk |= UInt16(symbols[index + offset].rawValue) << (12 - 2 * offset) }
                NetworkBytes.append(chunk, to: &bytes)
                index += min(7, remaining)
            }
        }
    }
}
