import Foundation

/// A meeting lifecycle event, as a self-hosted stand-in for what Chime sends to the targets of a meeting's
/// `NotificationsConfiguration`: the same event types (`chime:MeetingStarted`, `chime:AttendeeJoined`, ...), the same
/// ids, delivered as signed webhooks (``WebhookTarget``).
public struct MeetingEvent: Sendable, Equatable, Codable {
    /// The event types Carillon sends today, with Chime's names; a content share (`<attendeeId>#content`) has the
    /// `AttendeeContent…` ones.
    public enum EventType: String, Sendable, Codable, CaseIterable {
        case meetingStarted = "chime:MeetingStarted"
        case meetingEnded = "chime:MeetingEnded"
        case attendeeAdded = "chime:AttendeeAdded"
        case attendeeDeleted = "chime:AttendeeDeleted"
        case attendeeJoined = "chime:AttendeeJoined"
        case attendeeLeft = "chime:AttendeeLeft"
        case attendeeDropped = "chime:AttendeeDropped"
        case attendeeVideoStarted = "chime:AttendeeVideoStarted"
        case attendeeVideoStopped = "chime:AttendeeVideoStopped"
        case attendeeContentJoined = "chime:AttendeeContentJoined"
        case attendeeContentLeft = "chime:AttendeeContentLeft"
        case attendeeContentDropped = "chime:AttendeeContentDropped"
        case attendeeContentVideoStarted = "chime:AttendeeContentVideoStarted"
        case attendeeContentVideoStopped = "chime:AttendeeContentVideoStopped"
    }

    /// What happened.
    public var eventType: EventType
    /// The meeting.
    public var meetingId: String
    /// The attendee, for attendee events.
    public var attendeeId: String?
    /// The attendee's ExternalUserId, for attendee events.
    public var externalUserId: String?
    /// When it happened, in milliseconds since 1970.
    public var timestamp: Int64

    /// Creates an event.
    public init(eventType: EventType, meetingId: String, attendeeId: String? = nil, externalUserId: String? = nil,
                timestamp: Int64) {
        self.eventType = eventType
        self.meetingId = meetingId
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
        self.timestamp = timestamp
    }
}
