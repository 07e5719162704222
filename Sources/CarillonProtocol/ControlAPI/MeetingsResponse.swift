extension ControlAPI {
    /// Legacy ListMeetings' response: `{"Meetings": [...]}`.
    public struct MeetingsResponse: Codable, Sendable, Equatable {
        /// The meetings.
        public var meetings: [Meeting]?
        /// Where the next page starts (`next-token`); absent on the last page.
        public var nextToken: String?

        enum CodingKeys: String, CodingKey {
            case meetings = "Meetings"
            case nextToken = "NextToken"
        }

        /// Creates a value; every member is optional.
        public init(meetings: [Meeting]? = nil, nextToken: String? = nil) {
            self.meetings = meetings
            self.nextToken = nextToken
        }
    }
}
