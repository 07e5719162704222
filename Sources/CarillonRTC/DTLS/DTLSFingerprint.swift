import CCarillonOpenSSL

/// A certificate fingerprint as carried in SDP `a=fingerprint` (RFC 8122): a hash algorithm and the digest of the
/// DER-encoded certificate.
public struct DTLSFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The hash function's SDP name, lowercase, for example "sha-256".
    public let algorithm: String
    /// The digest.
    public let bytes: [UInt8]

    /// The hash functions supported, by SDP name, with their digest lengths.
    public static let supportedAlgorithms: [String: Int] = [
        "sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64,
    ]

    /// Creates a fingerprint; `algorithm` is stored lowercase.
    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Parses an `a=fingerprint` value such as "sha-256 AB:CD:...".
    ///
    /// Accepts either case and extra spaces, and a leading "a=fingerprint:". Returns nil for an unsupported algorithm,
    /// a byte that is not exactly two hex digits, or a digest of the wrong length for the algorithm.
    public init?(sdpValue: String) {
        var text = Substring(sdpValue)
        let prefix = "a=fingerprint:"
        if text.lowercased().hasPrefix(prefix) { text = text.dropFirst(prefix.count) }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard words.count >= 2 else { return nil }
        let algorithm = words[0].lowercased()
        guard let length = Self.supportedAlgorithms[algorithm] else { return nil }
        // Spaces around the colons are tolerated: join the rest before splitting bytes.
        let hex = words.dropFirst().joined()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for part in hex.split(separator: ":", omittingEmptySubsequences: false) {
            let digits = Array(part.utf8)
            guard digits.count == 2, let high = Self.hexValue(digits[0]), let low = Self.hexValue(digits[1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        guard bytes.count == length else { return nil }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The `a=fingerprint` value: the algorithm, a space, and uppercase hex bytes joined by colons.
    public var sdpValue: String {
        let digits: [Character] = Array("0123456789ABCDEF")
        var hex = ""
        hex.reserveCapacity(bytes.count * 3)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { hex.append(":") }
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return "\(algorithm) \(hex)"
    }

    public var description: String { sdpValue }

    /// The fingerprint of `certificate` (an `X509*`) with the hash named `algorithm`.
    static func of(certificate: OpaquePointer, algorithm: String) throws(DTLSError) -> DTLSFingerprint {
        let digest: OpaquePointer?
        switch algorithm.lowercased() {
        case "sha-1": digest = EVP_sha1()
        case "sha-224": digest = EVP_sha224()
        case "sha-256": digest = EVP_sha256()
        case "sha-384": digest = EVP_sha384()
        case "sha-512": digest = EVP_sha512()
        default: throw .unsupportedFingerprintAlgorithm(algorithm)
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &output, &length) == 1 else {
            throw .openSSL(draining: "X509_digest")
        }
        return DTLSFingerprint(algorithm: algorithm, bytes: Array(output.prefix(Int(length))))
    }
}
