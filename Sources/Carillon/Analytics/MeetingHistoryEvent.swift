/// One entry of a session's meeting history: an event's name and when it was published (epoch milliseconds).
///
/// Threading: immutable; safe anywhere.
public final class MeetingHistoryEvent: CustomStringConvertible, Sendable {
    /// The event's name.
    public let meetingHistoryEventName: MeetingHistoryEventName
    /// When it was published, in milliseconds since 1970.
    public let timestampMs: Int64

    /// Creates an entry.
    public init(meetingHistoryEventName: MeetingHistoryEventName, timestampMs: Int64) {
        self.meetingHistoryEventName = meetingHistoryEventName
        self.timestampMs = timestampMs
    }

    /// `"<name>: <timestampMs>"`, as in Chime.
    public var description: String { "\(meetingHistoryEventName): \(timestampMs)" }
}
