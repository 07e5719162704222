import CCarillonOpenSSL

/// Comparisons whose running time does not depend on where secret inputs differ.
///
/// Stateless and safe to call from any thread.
public enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes.
    ///
    /// The time taken depends only on the lengths (which are not secret for MACs and tokens), never on the
    /// contents, so a forger cannot learn a correct prefix from timing (CRYPTO_memcmp).
    public static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        let left = Array(lhs)
        let right = Array(rhs)
        guard left.count == right.count else { return false }
        if left.isEmpty { return true }
        return left.withUnsafeBytes { leftBuffer in
            right.withUnsafeBytes { rightBuffer in
                CRYPTO_memcmp(leftBuffer.baseAddress, rightBuffer.baseAddress, left.count) == 0
            }
        }
    }
}
