/// CreateAttendee's response (`{"Attendee": {...}}`), as an app's back end hands it over. Decodable from its JSON.
public final class CreateAttendeeResponse: Decodable, Sendable {
    let attendee: Attendee

    enum CodingKeys: String, CodingKey { case attendee = "Attendee" }

    /// Wraps an attendee.
    public init(attendee: Attendee) { self.attendee = attendee }
}
