extension ControlAPI {
    /// The answer to a guest's `POST /join/<invite>`: `{"JoinInfo": {"Meeting": {...}, "Attendee": {...}}}`, the shape
    /// of the Chime JS demo's join endpoint, so a page built on the Chime JS SDK can join with it too.
    public struct JoinInfoResponse: Codable, Sendable, Equatable {
        /// The meeting and the attendee made for the guest.
        public var joinInfo: JoinInfo

        enum CodingKeys: String, CodingKey {
            case joinInfo = "JoinInfo"
        }

        /// Creates a value.
        public init(joinInfo: JoinInfo) {
            self.joinInfo = joinInfo
        }

        /// What a client needs to join: the meeting (with its MediaPlacement) and the attendee (with its JoinToken).
        public struct JoinInfo: Codable, Sendable, Equatable {
            /// The meeting, as GetMeeting shows it.
            public var meeting: Meeting
            /// The attendee created for the guest, as CreateAttendee shows it.
            public var attendee: Attendee

            enum CodingKeys: String, CodingKey {
                case meeting = "Meeting"
                case attendee = "Attendee"
            }

            /// Creates a value.
            public init(meeting: Meeting, attendee: Attendee) {
                self.meeting = meeting
                self.attendee = attendee
            }
        }
    }
}
