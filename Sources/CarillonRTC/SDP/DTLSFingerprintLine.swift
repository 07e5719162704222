/// The text of an `a=fingerprint` attribute (RFC 8122): a hash function name and the certificate digest.
///
/// This is plain text on purpose; the DTLS code decides how to compare it with a certificate.
public struct DTLSFingerprintLine: Sendable, Equatable, Hashable {
    /// Hash function name, lowercased, e.g. `sha-256`.
    public var algorithm: String
    /// The digest as written, e.g. `AB:CD:…`.
    public var value: String

    /// Creates a fingerprint line; the algorithm is lowercased.
    public init(algorithm: String, value: String) {
        self.algorithm = algorithm.lowercased()
        self.value = value
    }

    /// The attribute value: `<algorithm> <value>`.
    public var sdpValue: String { "\(algorithm) \(value)" }
}
