/// The attendee credentials of a session.
public final class MeetingSessionCredentials: Codable, Sendable {
    /// Attendee id.
    public let attendeeId: String
    /// The builder's id for the attendee.
    public let externalUserId: String
    /// Secret the session joins with.
    public let joinToken: String

    /// Creates credentials.
    public init(attendeeId: String, externalUserId: String, joinToken: String) {
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
        self.joinToken = joinToken
    }
}
