/// Where the control API's Carillon extension (`GET /carillon/meetings/{MeetingId}/attendees`) reads what attendees
/// are doing now: the server's live meeting rooms.
public protocol LiveAttendeeSource: Sendable {
    /// Every attendee that has joined the meeting's live room, present or gone; empty when the meeting has no room.
    func liveAttendees(meetingId: String) async throws -> [LiveAttendeeState]
}
