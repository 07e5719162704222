/// Where one attendee of a live meeting is now, as the meeting's signaling core knows it: what
/// `carillon meeting get` shows through the Carillon extension of the control API (`GET /carillon/meetings/{id}/attendees`).
public struct LiveAttendeeState: Sendable, Equatable {
    /// An attendee's presence in the meeting's room.
    public enum Presence: String, Sendable, Equatable {
        /// In the meeting with a live signaling socket.
        case joined
        /// Its socket ended; it is within the reconnect grace and still on everyone's roster.
        case reconnecting
        /// Left (LEAVE) or was removed.
        case left
        /// Its socket ended and it did not come back within the reconnect grace.
        case dropped
    }

    /// The attendee id.
    public var attendeeId: String
    /// The attendee's ExternalUserId.
    public var externalUserId: String
    /// Its presence now.
    public var presence: Presence
    /// When it entered ``presence`` (for `joined`, its first join in this room: a reconnect keeps it), wall clock in
    /// nanoseconds since the Unix epoch.
    public var sinceUnixNanoseconds: Int64
    /// Whether it is muted (false once it is gone).
    public var muted: Bool
    /// Whether it publishes a camera now.
    public var video: Bool
    /// Whether it shares content now (its `#content` session is in the meeting).
    public var content: Bool

    /// Creates a state from its parts.
    public init(attendeeId: String, externalUserId: String, presence: Presence, sinceUnixNanoseconds: Int64,
                muted: Bool, video: Bool, content: Bool) {
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
        self.presence = presence
        self.sinceUnixNanoseconds = sinceUnixNanoseconds
        self.muted = muted
        self.video = video
        self.content = content
    }
}
