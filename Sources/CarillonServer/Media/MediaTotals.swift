/// Media work summed over meetings: what ``MediaLoopCounters`` keep per loop and ``MediaCounterDirectory`` adds up.
public struct MediaTotals: Sendable, Equatable {
    /// Mixer ticks run (one every 20 ms per meeting with audio).
    public var mixerTicks = 0
    /// Time spent in mixer ticks, in nanoseconds (the loop's clock around each tick).
    public var mixerTickNanoseconds: Int64 = 0
    /// The longest tick seen, in nanoseconds.
    public var mixerTickMaximumNanoseconds: Int64 = 0
    /// RTP packets received from attendees and routed (mixed or forwarded).
    public var packetsRouted = 0
    /// Time spent routing them, in nanoseconds (from the decrypted packet to the protected copies queued).
    public var routingNanoseconds: Int64 = 0
    /// Datagrams the peer connections dropped: SRTP authentication or replay failures, malformed packets, media
    /// before keys.
    public var datagramsDroppedByConnections = 0

    /// All zero.
    public init() {}

    /// Adds `other` (maxima take the larger).
    public mutating func add(_ other: MediaTotals) {
        mixerTicks += other.mixerTicks
        mixerTickNanoseconds += other.mixerTickNanoseconds
        mixerTickMaximumNanoseconds = max(mixerTickMaximumNanoseconds, other.mixerTickMaximumNanoseconds)
        packetsRouted += other.packetsRouted
        routingNanoseconds += other.routingNanoseconds
        datagramsDroppedByConnections += other.datagramsDroppedByConnections
    }
}
