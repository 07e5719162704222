extension ControlAPI {
    /// BatchCreateAttendee's and ListAttendees's response.
    public struct AttendeesResponse: Codable, Sendable, Equatable {
        /// Attendees created or listed.
        public var attendees: [Attendee]?
        /// Items that failed (batch only).
        public var errors: [CreateAttendeeError]?
        /// Token of the next page (list only; absent on the last page).
        public var nextToken: String?

        enum CodingKeys: String, CodingKey {
            case attendees = "Attendees"
            case errors = "Errors"
            case nextToken = "NextToken"
        }

        /// Creates a value; every member is optional.
        public init(attendees: [Attendee]? = nil, errors: [CreateAttendeeError]? = nil, nextToken: String? = nil) {
            self.attendees = attendees
            self.errors = errors
            self.nextToken = nextToken
        }
    }
}
