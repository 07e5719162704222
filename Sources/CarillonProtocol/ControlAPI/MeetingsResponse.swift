extension ControlAPI {
    /// Legacy ListMeetings' response: `{"Meetings": [...]}`.
    public struct MeetingsResponse: Codable, Sendable, Equatable {
        /// The meetings.
        public var meetings: [Meeting]?

        enum CodingKeys: String, CodingKey {
            case meetings = "Meetings"
        }

        /// Creates a value; every member is optional.
        public init(meetings: [Meeting]? = nil) {
            self.meetings = meetings
        }
    }
}
