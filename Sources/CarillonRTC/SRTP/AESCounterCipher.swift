import CCarillonOpenSSL

/// AES in counter mode (the SRTP "AES-CM" of RFC 3711 §4.1.1, and the key derivation PRF of §4.3.3) on one OpenSSL
/// cipher context keyed once; each use only sets a new 16-byte initial counter block, which allocates nothing.
///
/// Threading: not thread-safe; owned by one ``OpenSSLSRTPContext`` (or one key derivation).
final class AESCounterCipher {
    private let keyed: KeyedCipherContext
    private var context: OpaquePointer { keyed.context }

    /// Keys a context with a 16-byte (AES-128) or 32-byte (AES-256) key.
    init(key: [UInt8]) throws(SRTPError) {
        keyed = try KeyedCipherContext(mode: "CTR", key: key)
    }

    /// XORs the keystream that starts at the counter block `iv` (16 bytes) into `bytes`, in place: encryption and
    /// decryption are the same operation. False only if OpenSSL fails.
    func apply(iv: UnsafeRawPointer, to bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard EVP_CipherInit_ex2(context, nil, nil, iv.assumingMemoryBound(to: UInt8.self), 1, nil) == 1 else {
            return false
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        let pointer = base.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        return EVP_CipherUpdate(context, pointer, &written, pointer, Int32(bytes.count)) == 1 && Int(written) == bytes.count
    }
}
