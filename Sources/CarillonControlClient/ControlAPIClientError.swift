/// A control-API call that failed: the server's error shape and message, or a transport problem.
public struct ControlAPIClientError: Error, CustomStringConvertible, Sendable {
    /// HTTP status, or 0 when no response arrived.
    public let status: Int
    /// Error shape from `x-amzn-ErrorType` (e.g. `NotFoundException`), or a local reason.
    public let code: String
    /// The server's message.
    public let message: String

    /// Creates an error value.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// A readable summary of the error.
    public var description: String {
        status == 0 ? "\(code): \(message)" : "\(code) (HTTP \(status)): \(message)"
    }
}
