import NIOCore

/// A token bucket rate limiter (sans-IO): `capacity` tokens, refilled continuously at `refillPerSecond`.
///
/// The data-message throttles of a meeting are these (burst 200, 100 messages per second), and so is the frame-rate
/// cap of a sent video stream (``take(now:)`` per picture, on the capture clock).
public struct TokenBucket: Sendable {
    /// Largest number of tokens the bucket holds (the burst size).
    public let capacity: Double
    /// Tokens added per second.
    public let refillPerSecond: Double
    private var tokens: Double
    private var lastRefill: NIODeadline?

    /// Creates a full bucket.
    public init(capacity: Double, refillPerSecond: Double) {
        precondition(capacity >= 1 && refillPerSecond > 0, "a token bucket needs room for one token and a refill rate")
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.tokens = capacity
    }

    /// Takes one token if there is one; returns whether it was granted.
    public mutating func take(now: NIODeadline) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// The tokens in the bucket at `now` (refilled up to then).
    public mutating func available(now: NIODeadline) -> Double {
        refill(now: now)
        return tokens
    }

    private mutating func refill(now: NIODeadline) {
        if let lastRefill, now > lastRefill {
            let elapsed = Double((now - lastRefill).nanoseconds) / 1_000_000_000
            tokens = min(capacity, tokens + elapsed * refillPerSecond)
        }
        if lastRefill.map({ now > $0 }) ?? true { lastRefill = now }
    }
}
