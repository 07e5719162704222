import CarillonProtocol
import NIOCore

/// The messages a meeting keeps for replay to attendees who join or reconnect later (sans-IO).
///
/// At most `capacity` messages are kept (the oldest goes first when full), each until its own lifetime ends, and no
/// lifetime is longer than `maximumLifetime` (the public service keeps 1024 messages for at most five minutes).
public struct DataMessageBuffer: Sendable {
    /// Most messages kept at once.
    public let capacity: Int
    /// Upper bound on any message's lifetime.
    public let maximumLifetime: TimeAmount
    private var entries: [(payload: SdkDataMessagePayload, expiry: NIODeadline)] = []

    /// Creates an empty buffer.
    public init(capacity: Int = 1024, maximumLifetime: TimeAmount = .minutes(5)) {
        self.capacity = capacity
        self.maximumLifetime = maximumLifetime
    }

    /// Number of messages held, expired ones included until the next `removeExpired`.
    public var count: Int { entries.count }

    /// Keeps a stamped message for `lifetime` (clamped to the maximum); a zero or negative lifetime keeps nothing.
    public mutating func store(_ payload: SdkDataMessagePayload, lifetime: TimeAmount, now: NIODeadline) {
        guard lifetime > .zero, capacity > 0 else { return }
        removeExpired(now: now)
        if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
        entries.append((payload, now + min(lifetime, maximumLifetime)))
    }

    /// Drops every message whose lifetime has ended.
    public mutating func removeExpired(now: NIODeadline) {
        entries.removeAll { $0.expiry <= now }
    }

    /// The messages still alive, oldest first.
    public mutating func liveMessages(now: NIODeadline) -> [SdkDataMessagePayload] {
        removeExpired(now: now)
        return entries.map(\.payload)
    }
}
