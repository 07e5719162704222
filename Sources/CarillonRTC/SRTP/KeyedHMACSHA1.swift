import CCarillonOpenSSL

/// HMAC-SHA1 (RFC 2104) with the key's inner and outer pad blocks hashed once: each message starts from a copy of
/// those two SHA-1 states (plain structs, on the stack), so authenticating costs two short hashes more than SHA-1 of
/// the message and no heap allocation. SRTP's AES128_CM_HMAC_SHA1_80 truncates the result to 10 bytes.
///
/// Threading: a value; safe to use from one thread at a time per copy.
struct KeyedHMACSHA1 {
    /// Length of a full HMAC-SHA1 output.
    static let digestLength = 20

    private var inner = SHA_CTX()
    private var outer = SHA_CTX()

    /// Precomputes the pad states for `key` (at most one SHA-1 block, 64 bytes; SRTP's session keys are 20).
    init(key: [UInt8]) {
        precondition(key.count <= 64, "HMAC keys longer than a block are hashed first; SRTP never needs that")
        var innerPad = [UInt8](repeating: 0x36, count: 64)
        var outerPad = [UInt8](repeating: 0x5C, count: 64)
        for (index, byte) in key.enumerated() {
            innerPad[index] ^= byte
            outerPad[index] ^= byte
        }
        carillon_sha1_init(&inner)
        carillon_sha1_update(&inner, innerPad, 64)
        carillon_sha1_init(&outer)
        carillon_sha1_update(&outer, outerPad, 64)
    }

    /// Writes the first `tag.count` bytes (1 to 20) of HMAC(key, message || suffix) to `tag`; `suffix`, when
    /// given, is hashed as 4 big-endian bytes (SRTP appends the rollover counter that way, RFC 3711 §4.2).
    func authenticate(_ message: UnsafeRawBufferPointer, suffix: UInt32?, into tag: UnsafeMutableRawBufferPointer) {
        precondition((1...Self.digestLength).contains(tag.count), "an HMAC-SHA1 tag is 1 to 20 bytes")
        var digest: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digest) { digestBytes in
            let digestPointer = digestBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var state = inner
            if let base = message.baseAddress { carillon_sha1_update(&state, base, message.count) }
            if let suffix {
                var bigEndian = suffix.bigEndian
                carillon_sha1_update(&state, &bigEndian, 4)
            }
            carillon_sha1_final(digestPointer, &state)
            state = outer
            carillon_sha1_update(&state, digestPointer, Self.digestLength)
            carillon_sha1_final(digestPointer, &state)
            tag.copyMemory(from: UnsafeRawBufferPointer(rebasing: digestBytes[..<tag.count]))
        }
    }

    /// Whether the `tag.count` bytes (1 to 20) of `tag` equal HMAC(key, message || suffix), compared in constant
    /// time.
    func verify(_ message: UnsafeRawBufferPointer, suffix: UInt32?, tag: UnsafeRawBufferPointer) -> Bool {
        precondition((1...Self.digestLength).contains(tag.count), "an HMAC-SHA1 tag is 1 to 20 bytes")
        var expected: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &expected) { expectedBytes in
            let prefix = UnsafeMutableRawBufferPointer(rebasing: expectedBytes[..<tag.count])
            authenticate(message, suffix: suffix, into: prefix)
            return CRYPTO_memcmp(prefix.baseAddress!, tag.baseAddress!, tag.count) == 0
        }
    }
}
