import Foundation
import PostgresNIO

/// A cluster's webhook queue in the shared database: events of the meetings that asked for them, kept until one node
/// has delivered them (or given up), so none is lost when a node stops, and each is sent by one node only, in order
/// within its meeting.
extension PostgresMeetingStore {
    /// What a queued event is to the subscription of its meeting.
    public enum WebhookSubscription: Sendable {
        /// The meeting starts wanting events (its MeetingStarted).
        case subscribes
        /// Only for a meeting that wants events.
        case requires
        /// The meeting's last (its MeetingEnded): queued if it wanted events, which it then stops wanting.
        case ends
    }

    /// Queues the JSON `body` of an event of `meetingId`, as `subscription` says.
    public func enqueueWebhook(meetingId: String, body: String, subscription: WebhookSubscription) async throws {
        let logger = logger
        try await client.withTransaction(logger: logger) { connection in
            if case .subscribes = subscription {
                try await connection.query(
                    "INSERT INTO webhook_subscription (meeting_id) VALUES (\(meetingId)) ON CONFLICT DO NOTHING",
                    logger: logger)
            }
            try await connection.query("""
                INSERT INTO webhook_event (meeting_id, body) SELECT \(meetingId), \(body)
                WHERE EXISTS (SELECT 1 FROM webhook_subscription WHERE meeting_id = \(meetingId))
                """, logger: logger)
            if case .ends = subscription {
                try await connection.query("DELETE FROM webhook_subscription WHERE meeting_id = \(meetingId)",
                                           logger: logger)
            }
        }
    }

    /// Takes the oldest event that is due and is the first of its meeting's queue, skipping those another node is
    /// delivering (a row lock held for the delivery, so no two nodes send one event and a meeting's events go in
    /// order), and hands its body to `deliver`. Delivered, or tried `maximumAttempts` times, it leaves the queue;
    /// otherwise it is due again after ``WebhookDeliveryCore/backoff(afterAttempts:)``. Returns false when nothing
    /// was due.
    public func deliverNextWebhook(maximumAttempts: Int, deliver: @Sendable (String) async -> Bool) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            var head: (seq: Int64, body: String, attempts: Int32)?
            for try await row in try await connection.query("""
                SELECT e.seq, e.body, e.attempts FROM webhook_event e
                WHERE e.due_at <= now()
                  AND NOT EXISTS (SELECT 1 FROM webhook_event o WHERE o.meeting_id = e.meeting_id AND o.seq < e.seq)
                ORDER BY e.seq LIMIT 1 FOR UPDATE SKIP LOCKED
                """, logger: logger).decode((Int64, String, Int32).self) {
                head = row
            }
            guard let head else { return false }
            let attempts = Int(head.attempts) + 1
            if await deliver(head.body) || attempts >= maximumAttempts {
                try await connection.query("DELETE FROM webhook_event WHERE seq = \(head.seq)", logger: logger)
            } else {
                let wait = Double(WebhookDeliveryCore.backoff(afterAttempts: attempts).nanoseconds) / 1e9
                try await connection.query("""
                    UPDATE webhook_event SET attempts = \(Int32(attempts)), due_at = now() + make_interval(secs => \(wait))
                    WHERE seq = \(head.seq)
                    """, logger: logger)
            }
            return true
        }
    }

    /// Events waiting in the queue.
    public func queuedWebhooks() async throws -> Int {
        for try await count in try await client.query("SELECT COUNT(*)::BIGINT FROM webhook_event", logger: logger)
            .decode(Int64.self) {
            return Int(count)
        }
        return 0
    }
}
