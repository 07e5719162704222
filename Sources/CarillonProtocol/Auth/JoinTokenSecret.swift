import CarillonCrypto

/// The server's key for issuing and verifying join tokens: 32 random bytes.
///
/// Store it (as `hex`) and load it at start-up so tokens issued before a restart stay valid.
/// Its `description` is redacted so it does not leak into logs. Immutable and `Sendable`.
public struct JoinTokenSecret: Sendable, Equatable, CustomStringConvertible {
    /// Length of a secret in bytes.
    public static let byteCount = 32

    /// Why stored text or bytes are not a valid secret.
    public enum DecodingError: Error, Equatable, CustomStringConvertible {
        /// The secret must be exactly `JoinTokenSecret.byteCount` bytes; this many were given.
        case wrongLength(Int)
        /// The text holds a character that is not a hex digit, or an odd number of digits.
        case notHex

        /// Human-readable reason.
        public var description: String {
            switch self {
            case .wrongLength(let count):
                "join token secret must be \(JoinTokenSecret.byteCount) bytes, got \(count)"
            case .notHex:
                "join token secret is not hexadecimal text"
            }
        }
    }

    /// The raw key bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 32 key bytes.
    public init(bytes: [UInt8]) throws(DecodingError) {
        guard bytes.count == Self.byteCount else { throw .wrongLength(bytes.count) }
        self.bytes = bytes
    }

    /// Decodes a secret stored with `hex` (64 hex digits; surrounding whitespace, such as a trailing newline of a
    /// file, is ignored).
    public init(hex: String) throws(DecodingError) {
        let trimmed = hex.trimmingASCIIWhitespace()
        guard let decoded = Hex.decode(trimmed) else { throw .notHex }
        try self.init(bytes: decoded)
    }

    /// Returns a new secret from the system's secure random generator.
    public static func generate() -> JoinTokenSecret {
        // Cannot throw: the length is right by construction.
        JoinTokenSecret(unchecked: SecureRandom.bytes(count: byteCount))
    }

    private init(unchecked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The secret as 64 lowercase hex digits, for storage.
    public var hex: String { Hex.encode(bytes) }

    /// Redacted; never prints key material.
    public var description: String { "JoinTokenSecret(redacted)" }
}
