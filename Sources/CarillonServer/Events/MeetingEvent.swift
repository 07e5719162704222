import Foundation

/// A meeting lifecycle event, as a self-hosted stand-in for what Chime sends to the targets of a meeting's
/// `NotificationsConfiguration`: the same event types (`chime:MeetingStarted`, `chime:AttendeeJoined`, ...), the same
/// ids, delivered as signed webhooks (``WebhookTarget``).
public struct MeetingEvent: Sendable, Equatable, Codable {
    /// The event types Carillon sends today, with Chime's names; a content share (`<attendeeId>#content`) has the
    /// `AttendeeContent…` ones.
    public enum EventType: String, Sendable, Codable, CaseIterable {
        /// Meeting started.
        case meetingStarted = "chime:MeetingStarted"
        /// Meeting ended.
        case meetingEnded = "chime:MeetingEnded"
        /// Attendee added.
        case attendeeAdded = "chime:AttendeeAdded"
        /// Attendee deleted.
        case attendeeDeleted = "chime:AttendeeDeleted"
        /// Attendee joined.
        case attendeeJoined = "chime:AttendeeJoined"
        /// Attendee left.
        case attendeeLeft = "chime:AttendeeLeft"
        /// Attendee dropped.
        case attendeeDropped = "chime:AttendeeDropped"
        /// Attendee video started.
        case attendeeVideoStarted = "chime:AttendeeVideoStarted"
        /// Attendee video stopped.
        case attendeeVideoStopped = "chime:AttendeeVideoStopped"
        /// Attendee content joined.
        case attendeeContentJoined = "chime:AttendeeContentJoined"
        /// Attendee content left.
        case attendeeContentLeft = "chime:AttendeeContentLeft"
        /// Attendee content dropped.
        case attendeeContentDropped = "chime:AttendeeContentDropped"
        /// Attendee content video started.
        case attendeeContentVideoStarted = "chime:AttendeeContentVideoStarted"
        /// Attendee content video stopped.
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
