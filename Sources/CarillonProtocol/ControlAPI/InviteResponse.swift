extension ControlAPI {
    /// The answer to Carillon's `POST /carillon/meetings/{MeetingId}/invites`: `{"Invite": {...}}`.
    public struct InviteResponse: Codable, Sendable, Equatable {
        /// The invite made.
        public var invite: Invite

        enum CodingKeys: String, CodingKey {
            case invite = "Invite"
        }

        /// Creates a value.
        public init(invite: Invite) {
            self.invite = invite
        }

        /// A guest invite: a signed link that admits any number of guests to one meeting until it expires.
        public struct Invite: Codable, Sendable, Equatable {
            /// The meeting it admits to.
            public var meetingId: String
            /// The signed token (the last segment of the link).
            public var token: String
            /// The link a guest opens: the server's public base URL, `/join/`, the token.
            public var url: String
            /// When it stops admitting guests, ISO 8601 in UTC.
            public var expiresAt: String

            enum CodingKeys: String, CodingKey {
                case meetingId = "MeetingId"
                case token = "Token"
                case url = "Url"
                case expiresAt = "ExpiresAt"
            }

            /// Creates a value.
            public init(meetingId: String, token: String, url: String, expiresAt: String) {
                self.meetingId = meetingId
                self.token = token
                self.url = url
                self.expiresAt = expiresAt
            }
        }
    }
}
