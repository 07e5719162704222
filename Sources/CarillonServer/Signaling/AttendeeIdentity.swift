/// Who a signaling socket speaks for, established from its join token before it reaches a meeting.
public struct AttendeeIdentity: Hashable, Sendable {
    /// Attendee id, with the `#content` suffix for a content-share session.
    public let attendeeId: String
    /// The builder's id for the attendee (with `#content` for content share).
    public let externalUserId: String

    /// Creates an identity.
    public init(attendeeId: String, externalUserId: String) {
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
    }
}
