import NIOCore

/// The sans-IO part of webhook delivery: a queue of signed bodies sent one at a time, in order, with back-off.
///
/// Fed events, delivery outcomes and `now`; returns the body to POST next (at most one in flight) and its
/// ``nextDeadline`` (when a retry is due). Never blocks: a full queue drops its oldest event.
struct WebhookDeliveryCore {
    /// One event on its way.
    struct Pending: Equatable {
        let sequence: UInt64
        let body: [UInt8]
        var attempts = 0
    }

    let maximumAttempts: Int
    let queueLimit: Int
    private(set) var queue: [Pending] = []
    private(set) var inFlight = false
    /// When the head may be tried again after a failure.
    private(set) var retryAt: NIODeadline?
    private var nextSequence: UInt64 = 0
    /// Events given up (attempts spent) or dropped (queue full).
    private(set) var abandoned = 0

    static let firstBackoff = TimeAmount.milliseconds(500)
    static let maximumBackoff = TimeAmount.seconds(30)

    init(maximumAttempts: Int, queueLimit: Int) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.queueLimit = max(1, queueLimit)
    }

    var nextDeadline: NIODeadline? { inFlight ? nil : retryAt }

    /// Queues a body; returns what to send now, if anything.
    mutating func enqueue(_ body: [UInt8], now: NIODeadline) -> Pending? {
        if queue.count >= queueLimit {
            abandoned += 1
            // Keep the head if it is in flight: its outcome is still to come. With room for that one only, the new
            // event is the one dropped.
            guard !inFlight || queue.count > 1 else { return nil }
            queue.remove(at: inFlight ? 1 : 0)
        }
        queue.append(Pending(sequence: nextSequence, body: body))
        nextSequence += 1
        return sendIfDue(now: now)
    }

    /// The head's delivery ended; returns what to send now, if anything.
    mutating func delivered(sequence: UInt64, succeeded: Bool, now: NIODeadline) -> Pending? {
        guard inFlight, let head = queue.first, head.sequence == sequence else { return nil }
        inFlight = false
        if succeeded || head.attempts >= maximumAttempts {
            if !succeeded { abandoned += 1 }
            queue.removeFirst()
            retryAt = nil
            return sendIfDue(now: now)
        }
        retryAt = now + Self.backoff(afterAttempts: head.attempts)
        return nil
    }

    /// How long an event waits after its `attempts`-th failed delivery: 0.5 s, doubling up to 30 s.
    static func backoff(afterAttempts attempts: Int) -> TimeAmount {
        .nanoseconds(min(maximumBackoff.nanoseconds, firstBackoff.nanoseconds << Int64(min(max(attempts, 1) - 1, 16))))
    }

    /// The retry deadline passed; returns what to send now, if anything.
    mutating func tick(now: NIODeadline) -> Pending? { sendIfDue(now: now) }

    private mutating func sendIfDue(now: NIODeadline) -> Pending? {
        guard !inFlight, !queue.isEmpty else { return nil }
        if let retryAt, retryAt > now { return nil }
        retryAt = nil
        inFlight = true
        queue[0].attempts += 1
        return queue[0]
    }
}
