/// CreateMeeting's response (`{"Meeting": {...}}`), as an app's back end hands it over. Decodable from its JSON.
public final class CreateMeetingResponse: Decodable, Sendable {
    let meeting: Meeting

    enum CodingKeys: String, CodingKey { case meeting = "Meeting" }

    /// Wraps a meeting.
    public init(meeting: Meeting) { self.meeting = meeting }
}
