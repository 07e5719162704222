import CCarillonOpenSSL

/// SHA-256 (FIPS 180-4) computed by OpenSSL 3.
///
/// Stateless and safe to call from any thread.
public enum SHA256Digest {
    /// Length of a SHA-256 digest in bytes.
    public static let byteCount = 32

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ hashContiguous($0) }) {
            return digest
        }
        return Array(bytes).withUnsafeBufferPointer { hashContiguous($0) }
    }

    private static func hashContiguous(_ buffer: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            // An empty buffer may have a nil base address; OpenSSL 3 ignores the pointer when the count is 0.
            EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, EVP_sha256(), nil)
        }
        // EVP_Digest can only fail if the default provider is missing: a broken OpenSSL installation.
        precondition(status == 1 && length == UInt32(byteCount), "OpenSSL SHA-256 failed: \(OpenSSLError.drain())")
        return digest
    }
}
