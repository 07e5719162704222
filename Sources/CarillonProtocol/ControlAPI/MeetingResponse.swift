extension ControlAPI {
    /// `{"Meeting": ...}`: CreateMeeting and GetMeeting.
    public struct MeetingResponse: Codable, Sendable, Equatable {
        /// The meeting.
        public var meeting: Meeting?

        enum CodingKeys: String, CodingKey {
            case meeting = "Meeting"
        }

        /// Creates a value; every member is optional.
        public init(meeting: Meeting? = nil) {
            self.meeting = meeting
        }
    }
}
