import NIOCore

extension RTCPPacket.ReportBlock {
    /// The round-trip time this block measures for its sender (RFC 3550 §6.4.1): the arrival time minus the echoed
    /// sender-report time (`LSR`) minus the time the reporter held it (`DLSR`), all in 1/65536 s.
    ///
    /// Nil when the reporter has seen no sender report yet (`LSR` 0) or when the result would be negative (clocks
    /// or a stale block).
    public func roundTripTime(arrival: NTPTimestamp) -> TimeAmount? {
        guard lastSenderReport != 0 else { return nil }
        let units = arrival.compact &- lastSenderReport &- delaySinceLastSenderReport
        guard units < 0x8000_0000 else { return nil }
        return .nanoseconds(Int64(units) * 1_000_000_000 / 65_536)
    }
}
