/// Why a content share stopped, as ``ContentShareObserver/contentShareDidStop(status:)`` reports it. Immutable.
public final class ContentShareStatus: Sendable, CustomStringConvertible {
    /// The status code.
    public let statusCode: ContentShareStatusCode
    /// For a share that failed, the status its own session stopped with (``MeetingSessionStatusCode/audioCallAtCapacity``
    /// when the meeting already carries its most content shares, for instance): a Carillon addition that says why,
    /// where Chime's two codes say only that it failed. nil for ``ContentShareStatusCode/ok``.
    public let sessionStatusCode: MeetingSessionStatusCode?

    /// Creates a status.
    public init(statusCode: ContentShareStatusCode) {
        self.statusCode = statusCode
        self.sessionStatusCode = nil
    }

    /// Creates a status with the share session's status that caused it.
    public init(statusCode: ContentShareStatusCode, sessionStatusCode: MeetingSessionStatusCode?) {
        self.statusCode = statusCode
        self.sessionStatusCode = sessionStatusCode
    }

    /// The code's name.
    public var description: String { statusCode.description }
}
