extension ControlAPI {
    /// An attendee id inside a list.
    public struct AttendeeIdItem: Codable, Sendable, Equatable {
        /// Attendee id.
        public var attendeeId: String?

        enum CodingKeys: String, CodingKey {
            case attendeeId = "AttendeeId"
        }

        /// Creates a value; every member is optional.
        public init(attendeeId: String? = nil) {
            self.attendeeId = attendeeId
        }
    }
}
