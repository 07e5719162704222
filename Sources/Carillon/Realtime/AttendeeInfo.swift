/// An attendee in realtime callbacks; equal, hashed and ordered by attendee id only.
public final class AttendeeInfo: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Attendee id.
    public let attendeeId: String
    /// The builder's id for the attendee.
    public let externalUserId: String

    /// Creates an attendee value.
    public init(attendeeId: String, externalUserId: String) {
        self.attendeeId = attendeeId
        self.externalUserId = externalUserId
    }

    /// Equality as documented on the type.
    public static func == (lhs: AttendeeInfo, rhs: AttendeeInfo) -> Bool { lhs.attendeeId == rhs.attendeeId }
    /// Orders by the underlying value.
    public static func < (lhs: AttendeeInfo, rhs: AttendeeInfo) -> Bool { lhs.attendeeId < rhs.attendeeId }
    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(attendeeId) }

    /// `externalUserId (attendeeId)`.
    public var description: String { "\(externalUserId) (\(attendeeId))" }
}
