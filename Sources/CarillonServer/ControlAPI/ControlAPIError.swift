import CarillonProtocol
import Foundation

/// An error of the control API, rendered the way boto3 maps it to its exception classes: the shape name in
/// `x-amzn-ErrorType` and `{"Code", "Message", "RequestId"}` in the body (`control-api.md` §6).
public struct ControlAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Error shape, e.g. `NotFoundException`.
    public let shape: String
    /// HTTP status.
    public let status: Int
    /// Short legacy code, e.g. `NotFound`.
    public let code: String
    /// Human-readable explanation.
    public let message: String
    /// Seconds for `Retry-After` (ServiceUnavailable only).
    public let retryAfterSeconds: Int?

    /// Creates an error value.
    public init(shape: String, status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.shape = shape
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// 400: input breaks the service's rules.
    public static func badRequest(_ message: String) -> Self { .init(shape: "BadRequestException", status: 400, code: "BadRequest", message: message) }
    /// 400: a resource limit is reached.
    public static func limitExceeded(_ message: String) -> Self { .init(shape: "LimitExceededException", status: 400, code: "ResourceLimitExceeded", message: message) }
    /// 400: a media pipeline limit is reached (the Media Pipelines API's shape).
    public static func resourceLimitExceeded(_ message: String) -> Self { .init(shape: "ResourceLimitExceededException", status: 400, code: "ResourceLimitExceeded", message: message) }
    /// 400: too many tags.
    public static func tooManyTags(_ message: String) -> Self { .init(shape: "TooManyTagsException", status: 400, code: "TooManyTags", message: message) }
    /// 403: the request is not authentic.
    public static func forbidden(_ message: String) -> Self { .init(shape: "ForbiddenException", status: 403, code: "Forbidden", message: message) }
    /// 404: meeting or attendee unknown.
    public static func notFound(_ message: String) -> Self { .init(shape: "NotFoundException", status: 404, code: "NotFound", message: message) }
    /// 404: tag target unknown.
    public static func resourceNotFound(_ message: String) -> Self { .init(shape: "ResourceNotFoundException", status: 404, code: "NotFound", message: message) }
    /// 409: the same request is in flight.
    public static func conflict(_ message: String) -> Self { .init(shape: "ConflictException", status: 409, code: "Conflict", message: message) }
    /// 410: a guest invite that has expired (only the join page answers it; Chime's API has no 410).
    public static func gone(_ message: String) -> Self { .init(shape: "GoneException", status: 410, code: "Gone", message: message) }
    /// 422: well-formed but impossible here.
    public static func unprocessable(_ message: String) -> Self { .init(shape: "UnprocessableEntityException", status: 422, code: "Unprocessable", message: message) }
    /// 500: unexpected server failure.
    public static func serviceFailure(_ message: String) -> Self { .init(shape: "ServiceFailureException", status: 500, code: "ServiceFailure", message: message) }
    /// 503: try again later.
    public static func serviceUnavailable(_ message: String, retryAfter: Int = 1) -> Self {
        .init(shape: "ServiceUnavailableException", status: 503, code: "ServiceUnavailable", message: message, retryAfterSeconds: retryAfter)
    }

    /// The HTTP response carrying this error, with a fresh request id.
    public func render(requestId: String = UUID().uuidString.lowercased()) -> ControlAPIResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"),
            ("x-amzn-RequestId", requestId),
            ("x-amzn-ErrorType", shape),
        ]
        if let retryAfterSeconds { headers.append(("Retry-After", String(retryAfterSeconds))) }
        let body = ControlAPI.ErrorBody(code: code, message: message, requestId: requestId)
        return ControlAPIResponse(status: status, headers: headers, body: Array((try? JSONEncoder().encode(body)) ?? Data()))
    }

    /// A readable summary of the error.
    public var description: String { "\(shape): \(message)" }
}
