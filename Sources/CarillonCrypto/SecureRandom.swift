import CCarillonOpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (seeded by the operating system).
///
/// Safe to call from any thread.
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// Traps if the system random generator is unusable: continuing would hand out guessable tokens and secrets.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative random byte count")
        var out = [UInt8](repeating: 0, count: count)
        if count == 0 { return out }
        let status = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        precondition(status == 1, "OpenSSL RAND_bytes failed: \(OpenSSLError.drain())")
        return out
    }
}
