#if canImport(FoundationEssentials)
import CarillonCrypto
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies AWS Signature Version 4 on incoming control-API requests (control-api.md 9.2).
///
/// Accepts any region in the credential scope, requires the configured service (`chime`), recomputes the
/// signature over exactly the headers named in `SignedHeaders`, compares it in constant time, and requires
/// `X-Amz-Date` within `maxClockSkew` of the caller's `now`. Identical signatures on retries within one second
/// are accepted (no replay rejection, since boto3 produces them). Pure: the caller passes the time.
/// `Sendable` as long as the lookup closure is.
public struct SigV4Verifier: Sendable {
    /// Default allowed distance between `X-Amz-Date` and the server clock: 5 minutes.
    public static let defaultMaxClockSkew: Double = 300

    /// The signing name required in the credential scope.
    public let service: String
    /// Allowed distance, in seconds, between `X-Amz-Date` and `now`.
    public let maxClockSkew: Double
    private let secretForAccessKeyId: @Sendable (String) -> String?

    /// Creates a verifier that finds secrets with `secretForAccessKeyId` (nil for an unknown key id).
    public init(service: String = "chime", maxClockSkew: Double = SigV4Verifier.defaultMaxClockSkew,
                secretForAccessKeyId: @escaping @Sendable (String) -> String?) {
        self.service = service
        self.maxClockSkew = maxClockSkew
        self.secretForAccessKeyId = secretForAccessKeyId
    }

    /// Checks `request`; returns its parsed `Authorization` (access key id, region, ...) when it is authentic.
    public func verify(_ request: SigV4Request, now: Date) throws(SigV4Error) -> SigV4Authorization {
        let (authorization, amzDate, requestTime, secret) = try checkHeaders(request)
        let canonicalHeaders = try SigV4Canonical.canonicalHeaders(
            names: authorization.signedHeaders, headers: request.headers)
        let canonicalRequest = SigV4Canonical.canonicalRequest(
            method: request.method, rawPath: request.path, rawQuery: request.query,
            canonicalHeaders: canonicalHeaders, signedHeaders: authorization.signedHeaders, body: request.body)
        let expected = SigV4Canonical.signature(
            canonicalRequest: canonicalRequest, amzDate: amzDate, scopeDate: authorization.scopeDate,
            region: authorization.region, service: authorization.service, secretAccessKey: secret)
        guard ConstantTime.equals(Array(expected.utf8), Array(authorization.signature.utf8)) else {
            throw .signatureMismatch
        }
        // Checked after the signature so only authentic requests learn that their clock is off.
        guard abs(requestTime.timeIntervalSince(now)) <= maxClockSkew else {
            throw .requestTimeTooSkewed(requestTime: requestTime, serverTime: now)
        }
        return authorization
    }

    /// Checks what can be checked without the body (the `Authorization` header, its service, the date, a known access
    /// key id), so a server reads no body for a request that cannot be authentic; ``verify(_:now:)`` does this first.
    public func precheck(_ request: SigV4Request) throws(SigV4Error) {
        _ = try checkHeaders(request)
    }

    private func checkHeaders(_ request: SigV4Request) throws(SigV4Error)
        -> (authorization: SigV4Authorization, amzDate: String, requestTime: Date, secret: String) {
        let authorizationValues = request.headerValues("authorization")
        guard let header = authorizationValues.first else { throw .missingAuthorization }
        guard authorizationValues.count == 1 else { throw .malformedAuthorization("more than one Authorization header") }
        let authorization = try SigV4Authorization(parsing: header)
        guard authorization.service == service else { throw .wrongService(authorization.service) }
        for required in ["host", "x-amz-date"] where !authorization.signedHeaders.contains(required) {
            throw .malformedAuthorization("SignedHeaders must include \(required)")
        }

        let dateValues = request.headerValues("x-amz-date")
        guard let amzDateValue = dateValues.first else { throw .missingDate }
        let amzDate = String(amzDateValue.trimmingASCIIWhitespace())
        guard dateValues.count == 1, let requestTime = AmzDate.parse(amzDate) else {
            throw .malformedDate(amzDateValue)
        }
        guard amzDate.hasPrefix(authorization.scopeDate) else {
            throw .malformedAuthorization("credential date \(authorization.scopeDate) does not match X-Amz-Date")
        }

        guard let secret = secretForAccessKeyId(authorization.accessKeyId) else {
            throw .unknownAccessKey(authorization.accessKeyId)
        }
        return (authorization, amzDate, requestTime, secret)
    }
}
