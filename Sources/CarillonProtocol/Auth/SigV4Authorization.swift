import CarillonCrypto

/// A parsed SigV4 `Authorization` header:
/// `AWS4-HMAC-SHA256 Credential=<AKID>/<yyyymmdd>/<region>/<service>/aws4_request, SignedHeaders=<h1;h2>, Signature=<hex>`.
///
/// A value type; `Sendable`.
public struct SigV4Authorization: Sendable, Equatable {
    /// The only algorithm supported.
    public static let algorithm = "AWS4-HMAC-SHA256"

    /// Access key id of the signer.
    public let accessKeyId: String
    /// Credential-scope date, `yyyymmdd`.
    public let scopeDate: String
    /// Credential-scope region (whatever the client is configured with; not necessarily us-east-1).
    public let region: String
    /// Credential-scope service (the signing name; `chime` for the Chime SDK Meetings API).
    public let service: String
    /// Lowercase names of the signed headers, in the order given.
    public let signedHeaders: [String]
    /// The signature, 64 lowercase hex digits.
    public let signature: String

    /// Parses an `Authorization` header value.
    public init(parsing header: String) throws(SigV4Error) {
        let trimmed = header.trimmingASCIIWhitespace()
        let algorithmEnd = trimmed.firstIndex(of: " ") ?? trimmed.endIndex
        let algorithm = trimmed[..<algorithmEnd]
        guard algorithm == Self.algorithm else {
            if algorithm.isEmpty { throw .malformedAuthorization("empty header") }
            throw .unsupportedAlgorithm(String(algorithm))
        }
        var credential: Substring?
        var signedHeaders: Substring?
        var signature: Substring?
        for component in trimmed[algorithmEnd...].split(separator: ",") {
            let part = component.trimmingASCIIWhitespace()
            guard let equals = part.firstIndex(of: "=") else {
                throw .malformedAuthorization("component \"\(part)\" has no '='")
            }
            let key = part[..<equals]
            let value = part[part.index(after: equals)...]
            switch key {
            case "Credential" where credential == nil: credential = value
            case "SignedHeaders" where signedHeaders == nil: signedHeaders = value
            case "Signature" where signature == nil: signature = value
            default: throw .malformedAuthorization("unexpected or repeated component \"\(key)\"")
            }
        }
        guard let credential, let signedHeaders, let signature else {
            throw .malformedAuthorization("Credential, SignedHeaders and Signature are all required")
        }

        let scope = credential.split(separator: "/", omittingEmptySubsequences: false)
        guard scope.count == 5, scope.allSatisfy({ !$0.isEmpty }) else {
            throw .malformedAuthorization("Credential must be <key>/<date>/<region>/<service>/aws4_request")
        }
        guard scope[4] == "aws4_request" else {
            throw .malformedAuthorization("credential scope must end in aws4_request")
        }
        guard scope[1].utf8.count == 8, scope[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .malformedAuthorization("credential date must be yyyymmdd")
        }

        let headerNames = signedHeaders.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard !headerNames.isEmpty, headerNames.allSatisfy({ !$0.isEmpty && $0 == $0.lowercased() }) else {
            throw .malformedAuthorization("SignedHeaders must be lowercase names separated by ';'")
        }
        guard signature.utf8.count == 64, Hex.isLowercaseHex(signature) else {
            throw .malformedAuthorization("Signature must be 64 lowercase hex digits")
        }

        self.accessKeyId = String(scope[0])
        self.scopeDate = String(scope[1])
        self.region = String(scope[2])
        self.service = String(scope[3])
        self.signedHeaders = headerNames
        self.signature = String(signature)
    }

    /// Builds the header value from its parts (what a signer sends).
    init(accessKeyId: String, scopeDate: String, region: String, service: String, signedHeaders: [String],
         signature: String) {
        self.accessKeyId = accessKeyId
        self.scopeDate = scopeDate
        self.region = region
        self.service = service
        self.signedHeaders = signedHeaders
        self.signature = signature
    }

    /// The credential scope without the key id: `<yyyymmdd>/<region>/<service>/aws4_request`.
    public var credentialScope: String { "\(scopeDate)/\(region)/\(service)/aws4_request" }

    /// The header value, formatted as botocore formats it (components separated by ", ").
    public var headerValue: String {
        "\(Self.algorithm) Credential=\(accessKeyId)/\(credentialScope), "
            + "SignedHeaders=\(signedHeaders.joined(separator: ";")), Signature=\(signature)"
    }
}
