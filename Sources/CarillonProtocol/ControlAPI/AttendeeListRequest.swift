extension ControlAPI {
    /// Body of BatchCreateAttendee: `{"Attendees": [...]}`.
    public struct AttendeeListRequest: Codable, Sendable, Equatable {
        /// Attendees to create (1-100).
        public var attendees: [CreateAttendeeRequestItem]?

        enum CodingKeys: String, CodingKey {
            case attendees = "Attendees"
        }

        /// Creates a value; every member is optional.
        public init(attendees: [CreateAttendeeRequestItem]? = nil) {
            self.attendees = attendees
        }
    }
}
