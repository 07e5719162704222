/// What the delay-based detector concludes about the path from the trend of one-way delay.
public enum BandwidthUsage: Sendable, Equatable {
    /// Delay is steady: the path keeps up.
    case normal
    /// Delay is growing: a queue builds somewhere, the sender is above the path's capacity.
    case overusing
    /// Delay is shrinking: a queue drains.
    case underusing
}
