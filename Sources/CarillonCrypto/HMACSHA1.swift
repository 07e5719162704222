/// HMAC-SHA1 (RFC 2104), as STUN's MESSAGE-INTEGRITY uses it, computed by OpenSSL 3's EVP_MAC interface.
///
/// Stateless and safe to call from any thread.
public enum HMACSHA1 {
    /// Length of an HMAC-SHA1 tag in bytes.
    public static let byteCount = 20

    /// Returns the 20-byte HMAC-SHA1 of `message` under `key`.
    public static func authenticate(_ message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        EVPMAC.hmac(digest: "SHA1", byteCount: byteCount, message: message, key: key)
    }
}
