import CCarillonOpenSSL

/// AES-GCM (RFC 5116) on one OpenSSL cipher context keyed once: each packet only sets a new IV, which OpenSSL 3 does
/// without allocating, so sealing and opening cost no heap allocation.
///
/// Threading: not thread-safe; owned by one ``OpenSSLSRTPContext``.
final class AESGCMCipher {
    /// Length of the authentication tag SRTP uses with GCM (RFC 7714 §7.1).
    static let tagLength = 16

    private let keyed: KeyedCipherContext
    private var context: OpaquePointer { keyed.context }

    /// Keys a context with a 16-byte (AES-128) or 32-byte (AES-256) key.
    init(key: [UInt8]) throws(SRTPError) {
        keyed = try KeyedCipherContext(mode: "GCM", key: key)
    }

    /// Encrypts `payload` in place and writes the 16-byte tag over `associatedData` then `moreAssociatedData` and
    /// the payload; `iv` points at 12 bytes. False only if OpenSSL fails.
    func seal(iv: UnsafeRawPointer, associatedData: UnsafeRawBufferPointer, moreAssociatedData: UnsafeRawBufferPointer,
              payload: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawPointer) -> Bool {
        guard start(iv: iv, encrypting: true, associatedData, moreAssociatedData), transform(payload) else { return false }
        var written: Int32 = 0
        guard EVP_CipherFinal_ex(context, nil, &written) == 1 else { return false }
        return carillon_evp_aead_get_tag(context, tag, Int32(Self.tagLength)) == 1
    }

    /// Decrypts `payload` in place if `tag` verifies over the associated data and the ciphertext; false otherwise.
    /// On failure the payload holds unauthenticated bytes and must be dropped.
    func open(iv: UnsafeRawPointer, associatedData: UnsafeRawBufferPointer, moreAssociatedData: UnsafeRawBufferPointer,
              payload: UnsafeMutableRawBufferPointer, tag: UnsafeMutableRawPointer) -> Bool {
        guard start(iv: iv, encrypting: false, associatedData, moreAssociatedData),
              carillon_evp_aead_set_tag(context, tag, Int32(Self.tagLength)) == 1,
              transform(payload) else { return false }
        var written: Int32 = 0
        // The tag is checked here: 0 means it did not verify.
        return EVP_CipherFinal_ex(context, nil, &written) == 1
    }

    private func start(iv: UnsafeRawPointer, encrypting: Bool, _ first: UnsafeRawBufferPointer,
                       _ second: UnsafeRawBufferPointer) -> Bool {
        // Only the IV and the direction change: the key schedule stays from init.
        guard EVP_CipherInit_ex2(context, nil, nil, iv.assumingMemoryBound(to: UInt8.self), encrypting ? 1 : 0, nil) == 1
        else { return false }
        return authenticate(first) && authenticate(second)
    }

    private func authenticate(_ associatedData: UnsafeRawBufferPointer) -> Bool {
        guard let base = associatedData.baseAddress, !associatedData.isEmpty else { return true }
        var written: Int32 = 0
        return EVP_CipherUpdate(context, nil, &written, base.assumingMemoryBound(to: UInt8.self),
                                Int32(associatedData.count)) == 1
    }

    private func transform(_ payload: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = payload.baseAddress, !payload.isEmpty else { return true }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        // In place: OpenSSL allows the output to be the input.
        return EVP_CipherUpdate(context, bytes, &written, bytes, Int32(payload.count)) == 1 && Int(written) == payload.count
    }
}
