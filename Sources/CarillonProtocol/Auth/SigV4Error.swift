#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a request could not be signed or failed SigV4 verification.
///
/// A server answers all of them with 403 (`ForbiddenException`); `description` is meant for its logs.
public enum SigV4Error: Error, Equatable, CustomStringConvertible {
    /// The request has no `Authorization` header.
    case missingAuthorization
    /// The `Authorization` header does not have the SigV4 shape; carries the reason.
    case malformedAuthorization(String)
    /// The `Authorization` header names an algorithm other than `AWS4-HMAC-SHA256`.
    case unsupportedAlgorithm(String)
    /// No secret is known for this access key id.
    case unknownAccessKey(String)
    /// The credential scope names another service than the one verified (`chime`).
    case wrongService(String)
    /// The recomputed signature differs from the one sent.
    case signatureMismatch
    /// `X-Amz-Date` is further than the allowed skew from the server's clock.
    case requestTimeTooSkewed(requestTime: Date, serverTime: Date)
    /// A header named in `SignedHeaders` (or required for signing, such as `host`) is absent from the request.
    case missingSignedHeader(String)
    /// The request has no `X-Amz-Date` header.
    case missingDate
    /// `X-Amz-Date` is not `YYYYMMDD'T'HHMMSS'Z'`; carries the value.
    case malformedDate(String)

    /// Human-readable reason, suitable for logs (never contains secrets).
    public var description: String {
        switch self {
        case .missingAuthorization: "missing Authorization header"
        case .malformedAuthorization(let reason): "malformed Authorization header: \(reason)"
        case .unsupportedAlgorithm(let algorithm): "unsupported signing algorithm \"\(algorithm)\""
        case .unknownAccessKey(let accessKeyId): "unknown access key id \"\(accessKeyId)\""
        case .wrongService(let service): "credential scope names service \"\(service)\", expected chime"
        case .signatureMismatch: "signature does not match"
        case .requestTimeTooSkewed(let requestTime, let serverTime):
            "request time \(requestTime.timeIntervalSince1970) is too far from server time \(serverTime.timeIntervalSince1970)"
        case .missingSignedHeader(let name): "signed header \"\(name)\" is missing from the request"
        case .missingDate: "missing X-Amz-Date header"
        case .malformedDate(let value): "malformed X-Amz-Date \"\(value)\""
        }
    }
}
