extension ControlAPI {
    /// Carillon's `POST /carillon/meetings/{MeetingId}/invites` (`carillon meeting invite`): `{"ExpiresInSeconds": N}`.
    public struct InviteRequest: Codable, Sendable, Equatable {
        /// How long the invite admits guests, in seconds (1 to 30 days' worth; absent: 24 hours).
        public var expiresInSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case expiresInSeconds = "ExpiresInSeconds"
        }

        /// Creates a value.
        public init(expiresInSeconds: Int? = nil) {
            self.expiresInSeconds = expiresInSeconds
        }
    }
}
