extension ControlAPI {
    /// Body of CreateMeeting and CreateMeetingWithAttendees.
    public struct CreateMeetingRequest: Codable, Sendable, Equatable {
        /// Idempotency token.
        public var clientRequestToken: String?
        /// Media region (defaults to us-east-1 for legacy clients).
        public var mediaRegion: String?
        /// The builder's id for the meeting.
        public var externalMeetingId: String?
        /// Reserved.
        public var meetingHostId: String?
        /// Notification targets.
        public var notificationsConfiguration: NotificationsConfiguration?
        /// Requested features.
        public var meetingFeatures: MeetingFeaturesConfiguration?
        /// Primary meeting of a replica.
        public var primaryMeetingId: String?
        /// Tenant ids (1-5).
        public var tenantIds: [String]?
        /// Tags (0-50).
        public var tags: [Tag]?
        /// `Ipv4Only` or `DualStack`.
        public var mediaPlacementNetworkType: String?
        /// Attendees to create with the meeting (1-20).
        public var attendees: [CreateAttendeeRequestItem]?

        enum CodingKeys: String, CodingKey {
            case clientRequestToken = "ClientRequestToken"
            case mediaRegion = "MediaRegion"
            case externalMeetingId = "ExternalMeetingId"
            case meetingHostId = "MeetingHostId"
            case notificationsConfiguration = "NotificationsConfiguration"
            case meetingFeatures = "MeetingFeatures"
            case primaryMeetingId = "PrimaryMeetingId"
            case tenantIds = "TenantIds"
            case tags = "Tags"
            case mediaPlacementNetworkType = "MediaPlacementNetworkType"
            case attendees = "Attendees"
        }

        /// Creates a value; every member is optional.
        public init(clientRequestToken: String? = nil, mediaRegion: String? = nil, externalMeetingId: String? = nil, meetingHostId: String? = nil, notificationsConfiguration: NotificationsConfiguration? = nil, meetingFeatures: MeetingFeaturesConfiguration? = nil, primaryMeetingId: String? = nil, tenantIds: [String]? = nil, tags: [Tag]? = nil, mediaPlacementNetworkType: String? = nil, attendees: [CreateAttendeeRequestItem]? = nil) {
            self.clientRequestToken = clientRequestToken
            self.mediaRegion = mediaRegion
            self.externalMeetingId = externalMeetingId
            self.meetingHostId = meetingHostId
            self.notificationsConfiguration = notificationsConfiguration
            self.meetingFeatures = meetingFeatures
            self.primaryMeetingId = primaryMeetingId
            self.tenantIds = tenantIds
            self.tags = tags
            self.mediaPlacementNetworkType = mediaPlacementNetworkType
            self.attendees = attendees
        }
    }
}
