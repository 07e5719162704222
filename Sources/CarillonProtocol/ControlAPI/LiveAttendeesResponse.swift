extension ControlAPI {
    /// The answer of the Carillon extension `GET /carillon/meetings/{MeetingId}/attendees`: every attendee the
    /// meeting has (as ListAttendees lists them, all pages in one), each with its live state.
    public struct LiveAttendeesResponse: Codable, Sendable, Equatable {
        /// The attendees, sorted by AttendeeId.
        public var attendees: [LiveAttendee]?

        enum CodingKeys: String, CodingKey {
            case attendees = "Attendees"
        }

        /// Creates a value.
        public init(attendees: [LiveAttendee]? = nil) {
            self.attendees = attendees
        }
    }
}
