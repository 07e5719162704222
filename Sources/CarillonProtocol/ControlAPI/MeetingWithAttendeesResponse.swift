extension ControlAPI {
    /// CreateMeetingWithAttendees's response.
    public struct MeetingWithAttendeesResponse: Codable, Sendable, Equatable {
        /// The meeting.
        public var meeting: Meeting?
        /// Attendees created.
        public var attendees: [Attendee]?
        /// Attendees that failed.
        public var errors: [CreateAttendeeError]?

        enum CodingKeys: String, CodingKey {
            case meeting = "Meeting"
            case attendees = "Attendees"
            case errors = "Errors"
        }

        /// Creates a value; every member is optional.
        public init(meeting: Meeting? = nil, attendees: [Attendee]? = nil, errors: [CreateAttendeeError]? = nil) {
            self.meeting = meeting
            self.attendees = attendees
            self.errors = errors
        }
    }
}
