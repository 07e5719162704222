import NIOCore

/// What a simulated one-way link does to datagrams.
public struct LinkConditions: Sendable, Equatable {
    /// Probability in [0, 1] that a datagram is lost.
    public var lossRate: Double
    /// Fixed one-way delay.
    public var delay: TimeAmount
    /// Extra delay, uniform in [0, jitter], per datagram.
    public var jitter: TimeAmount
    /// Whether jitter may reorder datagrams; when false, a datagram never overtakes an earlier one.
    public var allowsReordering: Bool
    /// Probability in [0, 1] that a datagram arrives twice.
    public var duplicationRate: Double
    /// Link capacity in bits per second; nil for unlimited.
    public var bandwidthBitsPerSecond: Int?
    /// Most bytes waiting for the link before new datagrams are dropped (tail drop); used with a bandwidth cap.
    public var queueLimitBytes: Int
    /// Periodic stalls at the receiving end, as when a busy machine deschedules the receiving process: every
    /// `period`, for `duration`, nothing is delivered, and what arrived meanwhile is delivered at once when the stall
    /// ends (nothing is lost; only arrival times bunch up). Nil for none.
    public var stalls: (period: TimeAmount, duration: TimeAmount)?

    /// Creates conditions; the defaults are a perfect link.
    public init(
        lossRate: Double = 0,
        delay: TimeAmount = .zero,
        jitter: TimeAmount = .zero,
        allowsReordering: Bool = false,
        duplicationRate: Double = 0,
        bandwidthBitsPerSecond: Int? = nil,
        queueLimitBytes: Int = 64 * 1024,
        stalls: (period: TimeAmount, duration: TimeAmount)? = nil
    ) {
        self.lossRate = lossRate
        self.delay = delay
        self.jitter = jitter
        self.allowsReordering = allowsReordering
        self.duplicationRate = duplicationRate
        self.bandwidthBitsPerSecond = bandwidthBitsPerSecond
        self.queueLimitBytes = queueLimitBytes
        self.stalls = stalls
    }

    public static func == (lhs: LinkConditions, rhs: LinkConditions) -> Bool {
        lhs.lossRate == rhs.lossRate && lhs.delay == rhs.delay && lhs.jitter == rhs.jitter
            && lhs.allowsReordering == rhs.allowsReordering && lhs.duplicationRate == rhs.duplicationRate
            && lhs.bandwidthBitsPerSecond == rhs.bandwidthBitsPerSecond && lhs.queueLimitBytes == rhs.queueLimitBytes
            && lhs.stalls?.period == rhs.stalls?.period && lhs.stalls?.duration == rhs.stalls?.duration
    }

    /// A perfect link.
    public static let perfect = LinkConditions()
}
