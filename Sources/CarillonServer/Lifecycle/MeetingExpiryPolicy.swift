import NIOCore

/// When a meeting ends by itself, as Chime ends them: when no attendee has had an audio connection for
/// ``idleTimeout`` (5 minutes), or ``maximumDuration`` (24 hours) after it was created. Sans-IO: a pure decision
/// from durations the caller measured.
public struct MeetingExpiryPolicy: Sendable, Equatable {
    /// Why a meeting ends.
    public enum Reason: Sendable, Equatable {
        /// Nobody has had an audio connection for the idle timeout.
        case idle
        /// The meeting reached its maximum duration.
        case maximumDuration
    }

    /// How long a meeting lives without any audio connection.
    public var idleTimeout: TimeAmount
    /// How long a meeting lives at most, counted from its creation.
    public var maximumDuration: TimeAmount

    /// Creates a policy; the defaults are Chime's.
    public init(idleTimeout: TimeAmount = .minutes(5), maximumDuration: TimeAmount = .hours(24)) {
        self.idleTimeout = idleTimeout
        self.maximumDuration = maximumDuration
    }

    /// Whether a meeting `age` old, whose attendees have had no audio connection for `idle` (zero while one has),
    /// has ended, and why.
    public func reason(age: TimeAmount, idle: TimeAmount) -> Reason? {
        if age >= maximumDuration { return .maximumDuration }
        if idle >= idleTimeout { return .idle }
        return nil
    }

    /// How often meetings should be checked: a fifth of the shorter limit, between 50 ms and 30 s, so a meeting
    /// outlives its limit by at most that much.
    public var checkInterval: TimeAmount {
        let shorter = min(idleTimeout, maximumDuration)
        return max(.milliseconds(50), min(.seconds(30), .nanoseconds(shorter.nanoseconds / 5)))
    }
}
