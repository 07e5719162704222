/// How an attendee's presence in a meeting changed, for lifecycle events.
public enum AttendeePresence: Sendable, Equatable {
    /// Joined for the first time in this meeting's room (a reconnect is not a join).
    case joined
    /// Left (LEAVE) or was removed (DeleteAttendee).
    case left
    /// Its connection ended and it did not come back within the reconnect grace.
    case dropped
}
