import Foundation

/// A data message received from the meeting.
public final class DataMessage: Sendable {
    /// Server ingest time in milliseconds since the Unix epoch (0 for a throttled message).
    public let timestampMs: Int64
    /// Topic.
    public let topic: String
    /// Payload.
    public let data: Data
    /// Sender's attendee id.
    public let senderAttendeeId: String
    /// Sender's external user id.
    public let senderExternalUserId: String
    /// True when this is one of our own messages that the server throttled and returned instead of delivering.
    public let throttled: Bool

    /// Creates a message value.
    public init(topic: String, data: Data, senderAttendeeId: String, senderExternalUserId: String, timestampMs: Int64,
                throttled: Bool) {
        self.topic = topic
        self.data = data
        self.senderAttendeeId = senderAttendeeId
        self.senderExternalUserId = senderExternalUserId
        self.timestampMs = timestampMs
        self.throttled = throttled
    }

    /// The payload as UTF-8 text, or nil when it is not.
    public func text() -> String? { String(data: data, encoding: .utf8) }

    /// The payload parsed as JSON, or nil when it is not.
    public func fromJSON() -> Any? { try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) }
}
