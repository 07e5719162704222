import NIOCore

/// The reconnect policy (`policies.md` §5.2): full-jitter back-off `random × min(5 s, 1 s × 2^k)` for the k-th retry,
/// within a time budget counted from the start of the episode (sans-IO).
struct ReconnectBackoff: Sendable {
    let shortBackoff: TimeAmount = .milliseconds(1000)
    let longBackoff: TimeAmount = .milliseconds(5000)
    let budget: TimeAmount
    private(set) var retries = 0
    private(set) var episodeStart: NIODeadline?

    init(budget: TimeAmount) { self.budget = budget }

    /// When the next attempt may run, or nil when the budget is spent. `random` is in [0, 1).
    mutating func nextAttempt(now: NIODeadline, random: Double) -> NIODeadline? {
        let start = episodeStart ?? now
        episodeStart = start
        guard now - start < budget else { return nil }
        let exponent = min(retries, 16)
        let ceiling = min(longBackoff.nanoseconds, shortBackoff.nanoseconds << exponent)
        retries += 1
        return now + .nanoseconds(Int64(Double(ceiling) * min(max(random, 0), 0.999_999)))
    }

    /// A successful connection ends the episode: budget and back-off start over.
    mutating func reset() {
        retries = 0
        episodeStart = nil
    }
}
