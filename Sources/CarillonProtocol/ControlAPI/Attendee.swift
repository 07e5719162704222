extension ControlAPI {
    /// An attendee as the API returns it.
    public struct Attendee: Codable, Sendable, Equatable {
        /// The builder's id for the attendee.
        public var externalUserId: String?
        /// Attendee id, a lowercase UUID.
        public var attendeeId: String?
        /// Secret the attendee's client joins with.
        public var joinToken: String?
        /// What the attendee may send and receive.
        public var capabilities: AttendeeCapabilities?

        enum CodingKeys: String, CodingKey {
            case externalUserId = "ExternalUserId"
            case attendeeId = "AttendeeId"
            case joinToken = "JoinToken"
            case capabilities = "Capabilities"
        }

        /// Creates a value; every member is optional.
        public init(externalUserId: String? = nil, attendeeId: String? = nil, joinToken: String? = nil, capabilities: AttendeeCapabilities? = nil) {
            self.externalUserId = externalUserId
            self.attendeeId = attendeeId
            self.joinToken = joinToken
            self.capabilities = capabilities
        }
    }
}
