extension ControlAPI {
    /// `{"Attendee": ...}`: CreateAttendee, GetAttendee, UpdateAttendeeCapabilities.
    public struct AttendeeResponse: Codable, Sendable, Equatable {
        /// The attendee.
        public var attendee: Attendee?

        enum CodingKeys: String, CodingKey {
            case attendee = "Attendee"
        }

        /// Creates a value; every member is optional.
        public init(attendee: Attendee? = nil) {
            self.attendee = attendee
        }
    }
}
