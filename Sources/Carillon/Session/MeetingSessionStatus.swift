/// A session status as passed to observers.
public final class MeetingSessionStatus: Sendable, CustomStringConvertible {
    /// The status code.
    public let statusCode: MeetingSessionStatusCode

    /// Wraps a status code.
    public init(statusCode: MeetingSessionStatusCode) { self.statusCode = statusCode }

    /// The status code's name.
    public var description: String { statusCode.description }
}
