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

    /// Sender report (PT 200): NTP time, RTP time, counts, report blocks.
    case senderReport(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                      reports: [ReportBlock])
    /// Receiver report (PT 201).
    case receiverReport(ssrc: UInt32, reports: [ReportBlock])
    /// Generic NACK (PT 205, FMT 1): the lost sequence numbers, expanded from PID/BLP pairs.
    case nack(senderSSRC: UInt32, mediaSSRC: UInt32, lost: [UInt16])
    /// Picture loss indication (PT 206, FMT 1).
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
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
        default:
            return .other(packetType: type, bytes: packet)
        }
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
        case .other(_, let bytes):
            return bytes
        }
        let words = body.count / 4
        return [0x80 | UInt8(count & 0x1F), type, UInt8(words >> 8), UInt8(words & 0xFF)] + body
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
