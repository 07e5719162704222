/// What an attendee did in a meeting that lifecycle events report.
public enum AttendeeActivity: Sendable, Equatable {
    /// Joined for the first time in this meeting's room (a reconnect is not a join).
    case joined
    /// Left (LEAVE) or was removed (DeleteAttendee).
    case left
    /// Its connection ended and it did not come back within the reconnect grace.
    case dropped
    /// Started sending video (its camera, or a content share for a `#content` attendee).
    case videoStarted
    /// Stopped sending video.
    case videoStopped
}
