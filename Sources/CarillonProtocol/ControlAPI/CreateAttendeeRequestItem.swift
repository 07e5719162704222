extension ControlAPI {
    /// One attendee to create (CreateAttendee body, and items of the batch operations).
    public struct CreateAttendeeRequestItem: Codable, Sendable, Equatable {
        /// The builder's id for the attendee (2-64 characters).
        public var externalUserId: String?
        /// Optional capabilities; all SendReceive when absent.
        public var capabilities: AttendeeCapabilities?

        enum CodingKeys: String, CodingKey {
            case externalUserId = "ExternalUserId"
            case capabilities = "Capabilities"
        }

        /// Creates a value; every member is optional.
        public init(externalUserId: String? = nil, capabilities: AttendeeCapabilities? = nil) {
            self.externalUserId = externalUserId
            self.capabilities = capabilities
        }
    }
}
