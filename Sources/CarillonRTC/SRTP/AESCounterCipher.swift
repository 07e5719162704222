import CCarillonOpenSSL

/// AES in counter mode (the SRTP "AES-CM" of RFC 3711 §4.1.1, and the key derivation PRF of §4.3.3) on one OpenSSL
/// cipher context keyed once; each use only sets a new 16-byte initial counter block, which allocates nothing.
///
/// Threading: not thread-safe; owned by one ``OpenSSLSRTPContext`` (or one key derivation).
final class AESCounterCipher {
    private let cipher: OpaquePointer
    private let context: OpaquePointer

    /// Keys a context with a 16-byte (AES-128) or 32-byte (AES-256) key.
    init(key: [UInt8]) throws(SRTPError) {
        guard key.count == 16 || key.count == 32 else { throw .badKeyLength(expected: 16, got: key.count) }
        guard let cipher = EVP_CIPHER_fetch(nil, key.count == 16 ? "AES-128-CTR" : "AES-256-CTR", nil) else {
            throw .openSSLFailure
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_free(cipher)
            throw .openSSLFailure
        }
        self.cipher = cipher
        self.context = context
        guard EVP_CipherInit_ex2(context, cipher, key, nil, 1, nil) == 1 else { throw .openSSLFailure }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        EVP_CIPHER_free(cipher)
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
