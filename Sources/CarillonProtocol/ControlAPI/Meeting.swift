extension ControlAPI {
    /// A meeting as the API returns it.
    public struct Meeting: Codable, Sendable, Equatable {
        /// Meeting id, a lowercase UUID.
        public var meetingId: String?
        /// Reserved host id, echoed when given.
        public var meetingHostId: String?
        /// The builder's id for the meeting.
        public var externalMeetingId: String?
        /// Media region named at creation.
        public var mediaRegion: String?
        /// Where clients connect.
        public var mediaPlacement: MediaPlacement?
        /// Effective features, defaults filled in.
        public var meetingFeatures: MeetingFeaturesConfiguration?
        /// Primary meeting of a replica.
        public var primaryMeetingId: String?
        /// Builder-defined tenant ids.
        public var tenantIds: [String]?
        /// ARN used by the tag operations.
        public var meetingArn: String?

        enum CodingKeys: String, CodingKey {
            case meetingId = "MeetingId"
            case meetingHostId = "MeetingHostId"
            case externalMeetingId = "ExternalMeetingId"
            case mediaRegion = "MediaRegion"
            case mediaPlacement = "MediaPlacement"
            case meetingFeatures = "MeetingFeatures"
            case primaryMeetingId = "PrimaryMeetingId"
            case tenantIds = "TenantIds"
            case meetingArn = "MeetingArn"
        }

        /// Creates a value; every member is optional.
        public init(meetingId: String? = nil, meetingHostId: String? = nil, externalMeetingId: String? = nil, mediaRegion: String? = nil, mediaPlacement: MediaPlacement? = nil, meetingFeatures: MeetingFeaturesConfiguration? = nil, primaryMeetingId: String? = nil, tenantIds: [String]? = nil, meetingArn: String? = nil) {
            self.meetingId = meetingId
            self.meetingHostId = meetingHostId
            self.externalMeetingId = externalMeetingId
            self.mediaRegion = mediaRegion
            self.mediaPlacement = mediaPlacement
            self.meetingFeatures = meetingFeatures
            self.primaryMeetingId = primaryMeetingId
            self.tenantIds = tenantIds
            self.meetingArn = meetingArn
        }
    }
}
