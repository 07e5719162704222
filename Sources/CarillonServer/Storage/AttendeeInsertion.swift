/// The outcome of adding an attendee to a meeting.
public enum AttendeeInsertion: Sendable, Equatable {
    /// A new attendee was stored.
    case created(AttendeeRecord)
    /// The meeting already has an attendee with this ExternalUserId: that one is returned unchanged.
    case existing(AttendeeRecord)
    /// The meeting is full.
    case limitExceeded(limit: Int)
    /// The meeting does not exist.
    case meetingNotFound
}
