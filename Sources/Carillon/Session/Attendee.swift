/// An attendee as CreateAttendee returns it. Decodable from the REST API's JSON.
public final class Attendee: Decodable, Sendable {
    let attendeeId: String
    let externalUserId: String
    let joinToken: String

    enum CodingKeys: String, CodingKey {
        case attendeeId = "AttendeeId", externalUserId = "ExternalUserId", joinToken = "JoinToken"
    }

    /// Creates an attendee.
    public init(attendeeId: String, externalUserId: String, joinToken: String) {
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
        self.joinToken = joinToken
    }
}
