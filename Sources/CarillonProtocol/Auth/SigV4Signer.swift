#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs requests with AWS Signature Version 4 the way botocore does for the Chime SDK Meetings API
/// (control-api.md 9.2): signing name `chime`, double-encoded path, signed headers `host;x-amz-date`, plus
/// `content-type` when the request has one, plus `x-amz-security-token` with a session token.
///
/// Immutable and `Sendable`; `sign` is a pure function of its inputs (the caller passes the time).
public struct SigV4Signer: Sendable {
    /// Access key id put in the credential scope.
    public let accessKeyId: String
    /// Region put in the credential scope.
    public let region: String
    /// Signing name put in the credential scope (`chime`).
    public let service: String
    private let secretAccessKey: String
    private let sessionToken: String?

    /// Creates a signer for one set of credentials.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil, region: String,
                service: String = "chime") {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// Returns the headers to add to `request` so that it verifies: `X-Amz-Date`, `X-Amz-Security-Token` (with
    /// a session token) and `Authorization`.
    ///
    /// `request.headers` must hold the `Host` header the HTTP client will send (with the port when it is not the
    /// scheme's default), and `Content-Type` when there is a body. `Authorization`, `X-Amz-Date` and
    /// `X-Amz-Security-Token` already present are ignored (a retry is signed afresh); the caller replaces them.
    /// Throws `.missingSignedHeader("host")` without a Host header.
    public func sign(_ request: SigV4Request, date: Date) throws(SigV4Error) -> [(name: String, value: String)] {
        let amzDate = AmzDate.format(date)
        let scopeDate = String(amzDate.prefix(8))

        var toSign: [(name: String, value: String)] = []
        for header in request.headers {
            let name = header.name.lowercased()
            if name == "host" || name == "content-type" {
                toSign.append((name, header.value))
            }
        }
        guard toSign.contains(where: { $0.name == "host" }) else { throw .missingSignedHeader("host") }
        toSign.append(("x-amz-date", amzDate))
        var added: [(name: String, value: String)] = [("X-Amz-Date", amzDate)]
        if let sessionToken {
            toSign.append(("x-amz-security-token", sessionToken))
            added.append(("X-Amz-Security-Token", sessionToken))
        }

        let signedHeaders = Set(toSign.map(\.name)).sorted()
        let canonicalHeaders = try SigV4Canonical.canonicalHeaders(names: signedHeaders, headers: toSign)
        let canonicalRequest = SigV4Canonical.canonicalRequest(
            method: request.method, rawPath: request.path, rawQuery: request.query,
            canonicalHeaders: canonicalHeaders, signedHeaders: signedHeaders, body: request.body)
        let signature = SigV4Canonical.signature(
            canonicalRequest: canonicalRequest, amzDate: amzDate, scopeDate: scopeDate, region: region,
            service: service, secretAccessKey: secretAccessKey)
        let authorization = SigV4Authorization(
            accessKeyId: accessKeyId, scopeDate: scopeDate, region: region, service: service,
            signedHeaders: signedHeaders, signature: signature)
        added.append(("Authorization", authorization.headerValue))
        return added
    }
}
