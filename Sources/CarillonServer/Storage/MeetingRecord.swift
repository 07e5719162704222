import CarillonProtocol
import Foundation

/// A stored meeting: what CreateMeeting accepted, with the effective features (defaults filled in).
public struct MeetingRecord: Sendable, Equatable, Codable {
    /// Lowercase UUID.
    public var meetingId: String
    /// The builder's id for the meeting.
    public var externalMeetingId: String?
    /// Media region named at creation.
    public var mediaRegion: String
    /// Reserved host id.
    public var meetingHostId: String?
    /// Primary meeting of a replica.
    public var primaryMeetingId: String?
    /// Tenant ids.
    public var tenantIds: [String]?
    /// Effective features.
    public var features: ControlAPI.MeetingFeaturesConfiguration
    /// Notification targets.
    public var notifications: ControlAPI.NotificationsConfiguration?
    /// When the meeting was created.
    public var createdAt: Date

    /// Creates a record.
    public init(meetingId: String, externalMeetingId: String?, mediaRegion: String, meetingHostId: String?,
                primaryMeetingId: String?, tenantIds: [String]?, features: ControlAPI.MeetingFeaturesConfiguration,
                notifications: ControlAPI.NotificationsConfiguration?, createdAt: Date) {
        self.meetingId = meetingId
        self.externalMeetingId = externalMeetingId
        self.mediaRegion = mediaRegion
        self.meetingHostId = meetingHostId
        self.primaryMeetingId = primaryMeetingId
        self.tenantIds = tenantIds
        self.features = features
        self.notifications = notifications
        self.createdAt = createdAt
    }

    /// The attendee cap in force.
    public var attendeeLimit: Int { features.attendee?.maxCount ?? 250 }
}
