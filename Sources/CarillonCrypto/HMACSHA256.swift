/// HMAC-SHA256 (RFC 2104 / RFC 4231) computed by OpenSSL 3's EVP_MAC interface.
///
/// Stateless and safe to call from any thread.
public enum HMACSHA256 {
    /// Length of an HMAC-SHA256 tag in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key` (any key length, including empty).
    public static func authenticate(_ message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        EVPMAC.hmac(digest: "SHA256", byteCount: byteCount, message: message, key: key)
    }
}
