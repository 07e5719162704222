/// A remote attendee's video source; the SDK hands out one object per attendee, compared by identity.
///
/// Handed to `remoteVideoSourcesDidBecomeAvailable` when the attendee's video appears in the meeting and to
/// `remoteVideoSourcesDidBecomeUnavailable` when it goes; the same object while it stays available.
public final class RemoteVideoSource: Hashable, @unchecked Sendable {
    /// Attendee id of the source's owner. Set by the SDK before the source is handed out; not changed afterwards.
    public var attendeeId: String = ""

    /// Creates an empty source.
    public init() {}

    /// Equality as documented on the type.
    public static func == (lhs: RemoteVideoSource, rhs: RemoteVideoSource) -> Bool { lhs === rhs }
    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
