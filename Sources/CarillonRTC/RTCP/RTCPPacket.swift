/// One packet of an RTCP compound packet (RFC 3550 §6, RFC 4585), parsed strictly; types Carillon does not interpret
/// yet are kept whole so they can be forwarded.
public enum RTCPPacket: Sendable, Equatable {
    /// One reception report block of an SR or RR.
    public struct ReportBlock: Sendable, Equatable {
        /// The stream the report is about.
        public var ssrc: UInt32
        /// Fraction lost since the previous report, in 1/256.
        public var fractionLost: UInt8
        /// Cumulative packets lost (24-bit signed).
        public var cumulativeLost: Int32
        /// Extended highest sequence number received.
        public var extendedHighestSequence: UInt32
        /// Interarrival jitter in timestamp units.
        public var jitter: UInt32
        /// Middle 32 bits of the last SR's NTP timestamp.
        public var lastSenderReport: UInt32
        /// Delay since that SR, in 1/65536 s.
        public var delaySinceLastSenderReport: UInt32

        /// Creates a report block.
        public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32,
                    jitter: UInt32, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
            self.ssrc = ssrc
            self.fractionLost = fractionLost
            self.cumulativeLost = cumulativeLost
            self.extendedHighestSequence = extendedHighestSequence
            self.jitter = jitter
            self.lastSenderReport = lastSenderReport
            self.delaySinceLastSenderReport = delaySinceLastSenderReport
        }
    }

    /// One item of a source description chunk (RFC 3550 §6.5): a type (1 CNAME, 2 NAME, 3 EMAIL, 4 PHONE, 5 LOC,
    /// 6 TOOL, 7 NOTE, 8 PRIV) and up to 255 bytes of value.
    public struct SourceDescriptionItem: Sendable, Equatable {
        /// The item type that carries the canonical name.
        public static let cnameType: UInt8 = 1

        /// Item type, 1-255 (0 ends an item list on the wire, so such items are not serialised).
        public var type: UInt8
        /// Item value, usually UTF-8 text; serialisation keeps the first 255 bytes.
        public var value: [UInt8]

        /// Creates an item.
        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// Creates an item with a text value.
        public init(type: UInt8, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// A CNAME item.
        public static func cname(_ name: String) -> SourceDescriptionItem { SourceDescriptionItem(type: cnameType, text: name) }

        /// The value as text, if it is valid UTF-8.
        public var text: String? { String(validating: value, as: UTF8.self) }
    }

    /// One chunk of a source description: a source and its items.
    public struct SourceDescriptionChunk: Sendable, Equatable {
        /// The source described.
        public var ssrc: UInt32
        /// Its items, in wire order.
        public var items: [SourceDescriptionItem]

        /// Creates a chunk.
        public init(ssrc: UInt32, items: [SourceDescriptionItem]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The first CNAME item's text, if any.
        public var cname: String? { items.first { $0.type == SourceDescriptionItem.cnameType }?.text }
    }

    /// One entry of a full intra request (RFC 5104 §4.3.1).
    public struct FullIntraRequestEntry: Sendable, Equatable {
        /// The media source asked for a key frame.
        public var ssrc: UInt32
        /// Command sequence number; a repeated request keeps it, a new one increments it.
        public var sequenceNumber: UInt8

        /// Creates an entry.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    /// Sender report (PT 200): NTP time, RTP time, counts, report blocks.
    case senderReport(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                      reports: [ReportBlock])
    /// Receiver report (PT 201).
    case receiverReport(ssrc: UInt32, reports: [ReportBlock])
    /// Generic NACK (PT 205, FMT 1): the lost sequence numbers, expanded from PID/BLP pairs.
    case nack(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16])
    /// Picture loss indication (PT 206, FMT 1).
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
    /// Source description (PT 202): per source, items such as the CNAME. At most 31 chunks are serialised.
    case sourceDescription(chunks: [SourceDescriptionChunk])
    /// Goodbye (PT 203): the sources leaving (at most 31 are serialised), with an optional reason (at most 255 UTF-8
    /// bytes are serialised).
    case goodbye(ssrcs: [UInt32], reason: String?)
    /// Full intra request (PT 206, FMT 4, RFC 5104): key frames asked of one or more media sources.
    case fullIntraRequest(senderSSRC: UInt32, entries: [FullIntraRequestEntry])
    /// Receiver estimated maximum bitrate (PT 206, FMT 15, "REMB", draft-alvestrand-rmcat-remb): a bitrate in bits per
    /// second for the listed sources (at most 255 are serialised); serialisation rounds it down to an 18-bit mantissa and
    /// 6-bit exponent.
    case receiverEstimatedMaximumBitrate(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32])
    /// Transport-wide congestion control feedback (PT 205, FMT 15).
    case transportFeedback(TransportFeedback)
    /// Any other packet, whole (header included).
    case other(packetType: UInt8, bytes: [UInt8])

    // MARK: Parsing

    /// Parses a compound packet into its packets.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw .truncated }
            guard bytes[offset] >> 6 == 2 else { throw .badVersion }
            let length = 4 * ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1)
            guard offset + length <= bytes.count else { throw .truncated }
            packets.append(try parse(Array(bytes[offset..<(offset + length)])))
            offset += length
        }
        guard !packets.isEmpty else { throw .truncated }
        return packets
    }

    private static func parse(_ packet: [UInt8]) throws(RTCPError) -> RTCPPacket {
        let count = Int(packet[0] & 0x1F)
        let type = packet[1]
        var end = packet.count
        if packet[0] & 0x20 != 0 {
            guard let padding = packet.last, padding > 0, Int(padding) <= end - 4 else { throw .badLength }
            end -= Int(padding)
        }
        func reports(from start: Int) throws(RTCPError) -> [ReportBlock] {
            guard start + 24 * count <= end else { throw .badLength }
            return (0..<count).map { index in
                let at = start + 24 * index
                let lostBits = Int32(packet[at + 5]) << 16 | Int32(packet[at + 6]) << 8 | Int32(packet[at + 7])
                return ReportBlock(
                    ssrc: NetworkBytes.readUInt32(packet, at), fractionLost: packet[at + 4],
                    cumulativeLost: lostBits & 0x80_0000 != 0 ? lostBits - 0x100_0000 : lostBits,
                    extendedHighestSequence: NetworkBytes.readUInt32(packet, at + 8), jitter: NetworkBytes.readUInt32(packet, at + 12),
                    lastSenderReport: NetworkBytes.readUInt32(packet, at + 16), delaySinceLastSenderReport: NetworkBytes.readUInt32(packet, at + 20))
            }
        }
        switch type {
        case 200:
            guard end >= 28 else { throw .badLength }
            return .senderReport(ssrc: NetworkBytes.readUInt32(packet, 4),
                                 ntpTimestamp: UInt64(NetworkBytes.readUInt32(packet, 8)) << 32 | UInt64(NetworkBytes.readUInt32(packet, 12)),
                                 rtpTimestamp: NetworkBytes.readUInt32(packet, 16), packetCount: NetworkBytes.readUInt32(packet, 20),
                                 octetCount: NetworkBytes.readUInt32(packet, 24), reports: try reports(from: 28))
        case 201:
            guard end >= 8 else { throw .badLength }
            return .receiverReport(ssrc: NetworkBytes.readUInt32(packet, 4), reports: try reports(from: 8))
        case 205 where count == 1:
            guard end >= 12, (end - 12) % 4 == 0 else { throw .badLength }
            var lost: [UInt16] = []
            for at in stride(from: 12, to: end, by: 4) {
                let pid = UInt16(packet[at]) << 8 | UInt16(packet[at + 1])
                let bitmask = UInt16(packet[at + 2]) << 8 | UInt16(packet[at + 3])
                lost.append(pid)
                for bit in 0..<16 where bitmask & (1 << bit) != 0 { lost.append(pid &+ UInt16(bit + 1)) }
            }
            return .nack(senderSSRC: NetworkBytes.readUInt32(packet, 4), mediaSSRC: NetworkBytes.readUInt32(packet, 8), lost: lost)
        case 206 where count == 1:
            guard end >= 12 else { throw .badLength }
            return .pictureLossIndication(senderSSRC: NetworkBytes.readUInt32(packet, 4), mediaSSRC: NetworkBytes.readUInt32(packet, 8))
        case 202:
            return .sourceDescription(chunks: try sourceDescriptionChunks(packet, count: count, end: end))
        case 203:
            return try goodbye(packet, count: count, end: end)
        case 205 where count == 15:
            return .transportFeedback(try TransportFeedback(parsing: packet, end: end))
        case 206 where count == 4:
            guard end >= 20, (end - 12) % 8 == 0 else { throw .badLength }
            let entries = stride(from: 12, to: end, by: 8).map { at in
                FullIntraRequestEntry(ssrc: NetworkBytes.readUInt32(packet, at), sequenceNumber: packet[at + 4])
            }
            return .fullIntraRequest(senderSSRC: NetworkBytes.readUInt32(packet, 4), entries: entries)
        case 206 where count == 15 && end >= 16 && packet[12..<16].elementsEqual("REMB".utf8):
            guard end >= 20 else { throw .badLength }
            let ssrcCount = Int(packet[16])
            guard end == 20 + 4 * ssrcCount else { throw .badLength }
            let exponent = Int(packet[17] >> 2)
            let mantissa = UInt64(packet[17] & 0x03) << 16 | UInt64(NetworkBytes.readUInt16(packet, 18))
            guard mantissa.leadingZeroBitCount >= exponent else { throw .badField }
            return .receiverEstimatedMaximumBitrate(senderSSRC: NetworkBytes.readUInt32(packet, 4), bitrate: mantissa << exponent,
                                                    ssrcs: (0..<ssrcCount).map { NetworkBytes.readUInt32(packet, 20 + 4 * $0) })
        default:
            return .other(packetType: type, bytes: packet)
        }
    }

    private static func sourceDescriptionChunks(_ packet: [UInt8], count: Int, end: Int) throws(RTCPError) -> [SourceDescriptionChunk] {
        var chunks: [SourceDescriptionChunk] = []
        var offset = 4
        for _ in 0..<count {
            guard offset + 4 <= end else { throw .badLength }
            var chunk = SourceDescriptionChunk(ssrc: NetworkBytes.readUInt32(packet, offset), items: [])
            offset += 4
            while true {
                guard offset < end else { throw .badLength }
                let type = packet[offset]
                if type == 0 { break }
                guard offset + 2 <= end, offset + 2 + Int(packet[offset + 1]) <= end else { throw .badLength }
                let length = Int(packet[offset + 1])
                chunk.items.append(SourceDescriptionItem(type: type, value: Array(packet[(offset + 2)..<(offset + 2 + length)])))
                offset += 2 + length
            }
            // The list ends with one to four zero bytes reaching the next 32-bit boundary.
            let next = (offset / 4 + 1) * 4
            guard next <= end else { throw .badLength }
            guard packet[offset..<next].allSatisfy({ $0 == 0 }) else { throw .badField }
            offset = next
            chunks.append(chunk)
        }
        guard offset == end else { throw .badLength }
        return chunks
    }

    private static func goodbye(_ packet: [UInt8], count: Int, end: Int) throws(RTCPError) -> RTCPPacket {
        let reasonStart = 4 + 4 * count
        guard reasonStart <= end else { throw .badLength }
        let ssrcs = (0..<count).map { NetworkBytes.readUInt32(packet, 4 + 4 * $0) }
        guard reasonStart < end else { return .goodbye(ssrcs: ssrcs, reason: nil) }
        let length = Int(packet[reasonStart])
        let reasonEnd = reasonStart + 1 + length
        guard reasonEnd <= end, end - reasonEnd < 4 else { throw .badLength }
        guard let reason = String(validating: packet[(reasonStart + 1)..<reasonEnd], as: UTF8.self) else { throw .badField }
        return .goodbye(ssrcs: ssrcs, reason: reason)
    }

    // MARK: Serialising

    /// The wire bytes of this packet (a compound packet is the concatenation of its packets).
    public func serialized() -> [UInt8] {
        var body: [UInt8] = []
        let count: Int
        let type: UInt8
        switch self {
        case .senderReport(let ssrc, let ntp, let rtp, let packets, let octets, let reports):
            (count, type) = (reports.count, 200)
            for value in [ssrc, UInt32(ntp >> 32), UInt32(ntp & 0xFFFF_FFFF), rtp, packets, octets] { NetworkBytes.append(value, to: &body) }
            for report in reports { Self.append(report, to: &body) }
        case .receiverReport(let ssrc, let reports):
            (count, type) = (reports.count, 201)
            NetworkBytes.append(ssrc, to: &body)
            for report in reports { Self.append(report, to: &body) }
        case .nack(let sender, let media, let lost):
            (count, type) = (1, 205)
            NetworkBytes.append(sender, to: &body)
            NetworkBytes.append(media, to: &body)
            var remaining = Array(Set(lost)).sorted { ($0 &- (lost.first ?? 0)) < ($1 &- (lost.first ?? 0)) }
            while let pid = remaining.first {
                var bitmask: UInt16 = 0
                remaining.removeFirst()
                remaining.removeAll { sequence in
                    let distance = sequence &- pid
                    guard (1...16).contains(distance) else { return false }
                    bitmask |= 1 << (distance - 1)
                    return true
                }
                body += [UInt8(pid >> 8), UInt8(pid & 0xFF), UInt8(bitmask >> 8), UInt8(bitmask & 0xFF)]
            }
        case .pictureLossIndication(let sender, let media):
            (count, type) = (1, 206)
            NetworkBytes.append(sender, to: &body)
            NetworkBytes.append(media, to: &body)
        case .sourceDescription(let chunks):
            (count, type) = (min(chunks.count, 31), 202)
            for chunk in chunks.prefix(31) {
                NetworkBytes.append(chunk.ssrc, to: &body)
                for item in chunk.items where item.type != 0 {
                    let value = item.value.prefix(255)
                    body += [item.type, UInt8(value.count)]
                    body += value
                }
                body.append(0)
                while body.count % 4 != 0 { body.append(0) }
            }
        case .goodbye(let ssrcs, let reason):
            (count, type) = (min(ssrcs.count, 31), 203)
            for ssrc in ssrcs.prefix(31) { NetworkBytes.append(ssrc, to: &body) }
            if let reason {
                var text = Array(reason.utf8.prefix(255))
                // Never cut a character in two.
                while String(validating: text, as: UTF8.self) == nil { text.removeLast() }
                body.append(UInt8(text.count))
                body += text
                while body.count % 4 != 0 { body.append(0) }
            }
        case .fullIntraRequest(let sender, let entries):
            (count, type) = (4, 206)
            NetworkBytes.append(sender, to: &body)
            NetworkBytes.append(UInt32(0), to: &body)
            for entry in entries {
                NetworkBytes.append(entry.ssrc, to: &body)
                body += [entry.sequenceNumber, 0, 0, 0]
            }
        case .receiverEstimatedMaximumBitrate(let sender, let bitrate, let ssrcs):
            (count, type) = (15, 206)
            NetworkBytes.append(sender, to: &body)
            NetworkBytes.append(UInt32(0), to: &body)
            body += Array("REMB".utf8)
            var (mantissa, exponent) = (bitrate, UInt64(0))
            while mantissa > 0x3_FFFF {
                mantissa >>= 1
                exponent += 1
            }
            let listed = ssrcs.prefix(255)
            body += [UInt8(listed.count), UInt8(exponent << 2 | mantissa >> 16), UInt8((mantissa >> 8) & 0xFF), UInt8(mantissa & 0xFF)]
            for ssrc in listed { NetworkBytes.append(ssrc, to: &body) }
        case .transportFeedback(let feedback):
            (count, type) = (15, 205)
            feedback.appendBody(to: &body)
        case .other(_, let bytes):
            return bytes
        }
        // Only transport feedback ends off a 32-bit boundary; it is padded the RFC 3550 way, the last byte counting.
        var padding: UInt8 = 0
        if body.count % 4 != 0 {
            padding = UInt8(4 - body.count % 4)
            body += [UInt8](repeating: 0, count: Int(padding) - 1) + [padding]
        }
        let words = body.count / 4
        return [0x80 | (padding > 0 ? 0x20 : 0) | UInt8(count & 0x1F), type, UInt8(words >> 8), UInt8(words & 0xFF)] + body
    }

    private static func append(_ report: ReportBlock, to bytes: inout [UInt8]) {
        NetworkBytes.append(report.ssrc, to: &bytes)
        let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, report.cumulativeLost))) & 0xFF_FFFF
        NetworkBytes.append(UInt32(report.fractionLost) << 24 | lost, to: &bytes)
        for value in [report.extendedHighestSequence, report.jitter, report.lastSenderReport, report.delaySinceLastSenderReport] {
            NetworkBytes.append(value, to: &bytes)
        }
    }
}
