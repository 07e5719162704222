import CCarillonOpenSSL

/// HMAC-SHA256 (RFC 2104 / RFC 4231) computed by OpenSSL 3's EVP_MAC interface.
///
/// Stateless and safe to call from any thread.
public enum HMACSHA256 {
    /// Length of an HMAC-SHA256 tag in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key` (any key length, including empty).
    public static func authenticate(_ message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        let keyBytes = Array(key)
        if let tag = message.withContiguousStorageIfAvailable({ authenticate(contiguous: $0, key: keyBytes) }) {
            return tag
        }
        return Array(message).withUnsafeBufferPointer { authenticate(contiguous: $0, key: keyBytes) }
    }

    private static func authenticate(contiguous message: UnsafeBufferPointer<UInt8>, key: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: byteCount)
        var length = 0
        // A non-nil key pointer matters even for an empty key: OpenSSL reads a nil key as "keep the old key".
        let placeholder: UInt8 = 0
        let result = withUnsafePointer(to: placeholder) { placeholderPointer in
            key.withUnsafeBufferPointer { keyBuffer in
                tag.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil,
                              keyBuffer.baseAddress ?? placeholderPointer, keyBuffer.count,
                              message.baseAddress ?? placeholderPointer, message.count,
                              out.baseAddress, out.count, &length)
                }
            }
        }
        // EVP_Q_mac fails only when the HMAC or SHA256 implementation cannot be fetched: a broken installation.
        precondition(result != nil && length == byteCount, "OpenSSL HMAC-SHA256 failed: \(OpenSSLError.drain())")
        return tag
    }
}
