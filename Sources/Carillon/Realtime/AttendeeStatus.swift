/// Presence states of an attendee.
public enum AttendeeStatus: Int, Sendable, CaseIterable {
    /// Joined.
    case joined = 1
    /// Left cleanly.
    case left = 2
    /// Lost its connection.
    case dropped = 3
}
