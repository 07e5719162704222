import CCarillonOpenSSL

/// One-shot HMAC through OpenSSL 3's EVP_MAC interface, shared by the HMAC types.
enum EVPMAC {
    static func hmac(digest: String, byteCount: Int, message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        let keyBytes = Array(key)
        if let tag = message.withContiguousStorageIfAvailable({ hmac(digest, byteCount, $0, keyBytes) }) { return tag }
        return Array(message).withUnsafeBufferPointer { hmac(digest, byteCount, $0, keyBytes) }
    }

    private static func hmac(_ digest: String, _ byteCount: Int, _ message: UnsafeBufferPointer<UInt8>, _ key: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: byteCount)
        var length = 0
        // A non-nil key pointer matters even for an empty key: OpenSSL reads a nil key as "keep the old key".
        let placeholder: UInt8 = 0
        let result = withUnsafePointer(to: placeholder) { placeholderPointer in
            key.withUnsafeBufferPointer { keyBuffer in
                tag.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(nil, "HMAC", nil, digest, nil,
                              keyBuffer.baseAddress ?? placeholderPointer, keyBuffer.count,
                              message.baseAddress ?? placeholderPointer, message.count,
                              out.baseAddress, out.count, &length)
                }
            }
        }
        // EVP_Q_mac fails only when the HMAC or digest implementation cannot be fetched: a broken installation.
        precondition(result != nil && length == byteCount, "OpenSSL HMAC-\(digest) failed: \(OpenSSLError.drain())")
        return tag
    }
}
