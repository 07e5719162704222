import CarillonCrypto
import Testing
@testable import CarillonProtocol

@Suite("Crypto over OpenSSL")
struct CryptoTests {
    // FIPS 180-2 appendix B examples plus the empty message.
    @Test("SHA-256 matches the FIPS 180 vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256Vectors(message: String, expected: String) {
        #expect(Hex.encode(SHA256Digest.hash(Array(message.utf8))) == expected)
    }

    @Test("SHA-256 of one million 'a' (FIPS 180 long message)")
    func sha256MillionA() {
        let digest = SHA256Digest.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Hex.encode(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("SHA-256 of a non-contiguous sequence equals that of the same bytes in an array")
    func sha256NonContiguous() {
        let lazyBytes = "abc".utf8.lazy.map { $0 }
        #expect(SHA256Digest.hash(lazyBytes) == SHA256Digest.hash(Array("abc".utf8)))
        #expect(SHA256Digest.hash("abc".utf8).count == SHA256Digest.byteCount)
    }

    struct HMACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let expected: String
        var testDescription: String { name }
    }

    // RFC 4231 section 4 test cases (case 5 compares the 128-bit truncation, as the RFC does).
    static let rfc4231: [HMACVector] = [
        HMACVector(name: "case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
                   expected: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        HMACVector(name: "case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
                   expected: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        HMACVector(name: "case 3", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
                   expected: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        HMACVector(name: "case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
                   expected: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        HMACVector(name: "case 5 (truncated)", key: [UInt8](repeating: 0x0c, count: 20),
                   data: Array("Test With Truncation".utf8), expected: "a3b6167473100ee06e0c796c2955552b"),
        HMACVector(name: "case 6", key: [UInt8](repeating: 0xaa, count: 131),
                   data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                   expected: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        HMACVector(name: "case 7", key: [UInt8](repeating: 0xaa, count: 131),
                   data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                                + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
                   expected: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("HMAC-SHA256 matches RFC 4231", arguments: rfc4231)
    func hmacVectors(vector: HMACVector) {
        let tag = HMACSHA256.authenticate(vector.data, key: vector.key)
        #expect(tag.count == HMACSHA256.byteCount)
        #expect(String(Hex.encode(tag).prefix(vector.expected.count)) == vector.expected)
    }

    @Test("HMAC-SHA256 with an empty key and empty message (value from Python's hmac module)")
    func hmacEmptyKey() {
        #expect(Hex.encode(HMACSHA256.authenticate([UInt8](), key: [UInt8]()))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("hex encodes lowercase and decodes either case")
    func hexRoundTrip() {
        let bytes: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]
        #expect(Hex.encode(bytes) == "00017f80abff")
        #expect(Hex.decode("00017f80abff") == bytes)
        #expect(Hex.decode("00017F80ABFF") == bytes)
        #expect(Hex.decode("") == [])
    }

    @Test("hex decoding rejects odd lengths and non-hex characters", arguments: ["abc", "zz", "0g", "a ", "é0"])
    func hexRejects(text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test("constant-time equality")
    func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!ConstantTime.equals([0x80] as [UInt8], [0x00] as [UInt8]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test("secure random bytes have the requested length and do not repeat")
    func secureRandom() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let first = SecureRandom.bytes(count: 32)
        let second = SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        // 4096 random bytes must not all be equal; a broken generator (all zeros) fails this.
        #expect(Set(SecureRandom.bytes(count: 4096)).count > 200)
    }
}
