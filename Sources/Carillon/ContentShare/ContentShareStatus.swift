/// Why a content share stopped, as ``ContentShareObserver/contentShareDidStop(status:)`` reports it. Immutable.
public final class ContentShareStatus: Sendable, CustomStringConvertible {
    /// The status code.
    public let statusCode: ContentShareStatusCode

    /// Creates a status.
    public init(statusCode: ContentShareStatusCode) { self.statusCode = statusCode }

    /// The code's name.
    public var description: String { statusCode.description }
}
