import CCarillonOpenSSL

/// One OpenSSL cipher context keyed once with an AES-128 or AES-256 key, for the ciphers that then only change its
/// IV per packet (which OpenSSL 3 does without allocating): ``AESCounterCipher`` and ``AESGCMCipher``.
///
/// Threading: not thread-safe; owned by one cipher.
final class KeyedCipherContext {
    /// The keyed `EVP_CIPHER_CTX`.
    let context: OpaquePointer
    private let cipher: OpaquePointer

    /// Fetches AES in `mode` ("CTR", "GCM") at the key's size (16 bytes: AES-128, 32: AES-256) and keys a context
    /// for encryption. Throws ``SRTPError/badKeyLength(expected:got:)`` for another size.
    init(mode: String, key: [UInt8]) throws(SRTPError) {
        guard key.count == 16 || key.count == 32 else { throw .badKeyLength(expected: 16, got: key.count) }
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-\(key.count * 8)-\(mode)", nil) else { throw .openSSLFailure }
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
}
