import NIOCore

/// Reception statistics of one RTP stream as RFC 3550 defines them (§6.4.1, appendix A.3 and A.8), sans-IO.
///
/// Fed each packet's sequence number, RTP timestamp and arrival time, it keeps the extended highest sequence number,
/// the cumulative and interval loss, and the interarrival jitter, and produces the values of an RTCP report block.
public struct RTPReceiveStatistics: Sendable {
    /// RTP clock rate of the stream (48 000 for Opus, 90 000 for video).
    public let clockRate: Int
    private var unwrapper = SequenceUnwrapper()
    /// The first sequence number seen, extended; nil before the first packet.
    private var baseSequence: Int64?
    /// The highest sequence number seen, extended.
    private var highestSequence: Int64 = 0
    private var received: UInt64 = 0
    private var expectedAtLastReport: UInt64 = 0
    private var receivedAtLastReport: UInt64 = 0
    private var lastTransit: Double?
    private var jitterUnits: Double = 0
    private var lastSenderReport: (compact: UInt32, arrival: NIODeadline)?

    /// Creates empty statistics for a stream with `clockRate`.
    public init(clockRate: Int) {
        precondition(clockRate > 0, "an RTP clock rate is positive")
        self.clockRate = clockRate
    }

    /// Packets received, duplicates included (as RFC 3550 counts them).
    public var packetsReceived: UInt64 { received }

    /// The highest sequence number seen, extended with the wrap-around count.
    public var extendedHighestSequence: UInt32 { UInt32(truncatingIfNeeded: highestSequence) }

    /// Packets expected from the first to the highest sequence number seen.
    public var packetsExpected: UInt64 {
        baseSequence.map { UInt64(highestSequence - $0 + 1) } ?? 0
    }

    /// Cumulative packets lost (expected minus received; negative when duplicates outnumber losses).
    public var cumulativeLost: Int64 { Int64(packetsExpected) - Int64(received) }

    /// Interarrival jitter in RTP timestamp units, as carried in a report block.
    public var jitter: UInt32 { UInt32(jitterUnits.rounded(.down)) }

    /// Interarrival jitter in seconds.
    public var jitterSeconds: Double { jitterUnits / Double(clockRate) }

    /// Records one packet.
    public mutating func record(sequenceNumber: UInt16, rtpTimestamp: UInt32, arrival: NIODeadline) {
        // A forward step of less than half the space is new; a wrap past zero starts a new cycle.
        let sequence = unwrapper.unwrap(sequenceNumber)
        if baseSequence == nil {
            baseSequence = sequence
            highestSequence = sequence
        } else {
            highestSequence = max(highestSequence, sequence)
        }
        received += 1
        // Jitter (A.8): transit time differences in timestamp units, smoothed with gain 1/16.
        let arrivalUnits = Double(arrival.uptimeNanoseconds) * Double(clockRate) / 1e9
        let transit = arrivalUnits - Double(rtpTimestamp)
        if let lastTransit {
            var difference = transit - lastTransit
            // RTP timestamps wrap at 2^32; bring the difference back near zero.
            let span = Double(UInt64(1) << 32)
            if difference > span / 2 { difference -= span } else if difference < -span / 2 { difference += span }
            jitterUnits += (abs(difference) - jitterUnits) / 16
        }
        lastTransit = transit
    }

    /// Records a sender report of the stream, so the next report block echoes it (`LSR`, `DLSR`) for the sender's
    /// round-trip measurement.
    public mutating func senderReportReceived(ntpTimestamp: NTPTimestamp, arrival: NIODeadline) {
        lastSenderReport = (ntpTimestamp.compact, arrival)
    }

    /// A report block about the stream `ssrc` as of `now`; starts a new loss interval (``takeFractionLost()``).
    public mutating func reportBlock(ssrc: UInt32, now: NIODeadline) -> RTCPPacket.ReportBlock {
        var delay: UInt32 = 0
        if let lastSenderReport {
            let held = max(0, (now - lastSenderReport.arrival).nanoseconds)
            delay = UInt32(clamping: held * 65_536 / 1_000_000_000)
        }
        // Cumulative loss is a 24-bit signed field.
        let lost = Int32(clamping: min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF))
        return RTCPPacket.ReportBlock(ssrc: ssrc, fractionLost: takeFractionLost(), cumulativeLost: lost,
                                      extendedHighestSequence: extendedHighestSequence, jitter: jitter,
                                      lastSenderReport: lastSenderReport?.compact ?? 0, delaySinceLastSenderReport: delay)
    }

    /// The fraction lost since the previous call, as the 8-bit fixed-point value of a report block (A.3), and the
    /// start of a new interval.
    public mutating func takeFractionLost() -> UInt8 {
        let expected = packetsExpected
        let expectedInterval = Int64(expected) - Int64(expectedAtLastReport)
        let receivedInterval = Int64(received) - Int64(receivedAtLastReport)
        expectedAtLastReport = expected
        receivedAtLastReport = received
        let lostInterval = expectedInterval - receivedInterval
        guard expectedInterval > 0, lostInterval > 0 else { return 0 }
        return UInt8(min(255, (lostInterval << 8) / expectedInterval))
    }
}
