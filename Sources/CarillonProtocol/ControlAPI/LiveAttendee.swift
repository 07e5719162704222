extension ControlAPI {
    /// One attendee of a meeting with what it is doing now: an item of the Carillon extension
    /// `GET /carillon/meetings/{MeetingId}/attendees` (not a Chime operation; SigV4-signed like the rest of the API).
    public struct LiveAttendee: Codable, Sendable, Equatable {
        /// Attendee id.
        public var attendeeId: String?
        /// The builder's id for the attendee.
        public var externalUserId: String?
        /// `not-joined` (created, never in the meeting), `joined`, `reconnecting` (its connection ended; it is
        /// still on the roster for the reconnect grace), `left` or `dropped`.
        public var state: String?
        /// When it entered `state`, ISO 8601 UTC with milliseconds (absent for `not-joined`); for `joined`, its first
        /// join (a reconnect keeps it).
        public var since: String?
        /// Whether it is muted.
        public var muted: Bool?
        /// Whether it sends a camera now.
        public var video: Bool?
        /// Whether it shares content now.
        public var content: Bool?

        enum CodingKeys: String, CodingKey {
            case attendeeId = "AttendeeId"
            case externalUserId = "ExternalUserId"
            case state = "State"
            case since = "Since"
            case muted = "Muted"
            case video = "Video"
            case content = "Content"
        }

        /// Creates a value; every member is optional.
        public init(attendeeId: String? = nil, externalUserId: String? = nil, state: String? = nil, since: String? = nil,
                    muted: Bool? = nil, video: Bool? = nil, content: Bool? = nil) {
            self.attendeeId = attendeeId
            self.externalUserId = externalUserId
            self.state = state
            self.since = since
            self.muted = muted
            self.video = video
            self.content = content
        }
    }
}
