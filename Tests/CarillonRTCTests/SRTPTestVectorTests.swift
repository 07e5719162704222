@testable import CarillonRTC
import Testing

/// ``OpenSSLSRTPContext``'s parts against the published test vectors: RFC 3711 Appendix B (key derivation, AES-CM
/// keystream), RFC 6188 (AES-256 key derivation) and RFC 7714 §16-17 (AES-GCM SRTP and SRTCP).
@Suite struct SRTPTestVectorTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = text.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    // MARK: Key derivation

    @Test func rfc3711KeyDerivation() throws {
        let prf = try AESCounterCipher(key: Self.hex("E1F97A0D3E018BE0D64FA32C06DE4139"))
        let salt = Self.hex("0EC675AD498AFEEBB6960B3AABE6")
        #expect(try SRTPKeyDerivation.derive(.rtpEncryption, length: 16, prf: prf, masterSalt: salt)
            == Self.hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(try SRTPKeyDerivation.derive(.rtpSalt, length: 14, prf: prf, masterSalt: salt)
            == Self.hex("30CBBC08863D8C85D49DB34A9AE1"))
        // The appendix lists 94 bytes of the authentication keystream: several counter blocks.
        #expect(try SRTPKeyDerivation.derive(.rtpAuthentication, length: 94, prf: prf, masterSalt: salt) == Self.hex("""
            CEBE321F6FF7716B6FD4AB49AF256A156D38BAA48F0A0ACF3C34E2359E6CDBCE
            E049646C43D9327AD175578EF72270986371C10C9A369AC2F94A8C5FBCDDDC25
            6D6E919A48B610EF17C2041E474035766B68642C59BBFC2F34DB60DBDFB2
            """))
    }

    @Test func rfc3711SessionKeysOfTheProfile() throws {
        let keys = try SRTPKeyDerivation.sessionKeys(profile: .aes128CMHMACSHA1_80,
                                                     masterKey: Self.hex("E1F97A0D3E018BE0D64FA32C06DE4139"),
                                                     masterSalt: Self.hex("0EC675AD498AFEEBB6960B3AABE6"))
        #expect(keys.rtpKey == Self.hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(keys.rtpSalt == Self.hex("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(keys.rtpAuthenticationKey == Self.hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
        // SRTCP uses its own labels: its keys differ from SRTP's.
        #expect(keys.rtcpKey != keys.rtpKey && keys.rtcpSalt != keys.rtpSalt
            && keys.rtcpAuthenticationKey != keys.rtpAuthenticationKey)
    }

    @Test func rfc6188AES256KeyDerivation() throws {
        let prf = try AESCounterCipher(key: Self.hex("F0F04914B513F2763A1B1FA130F10E2998F6F6E43E4309D1E622A0E332B9F1B6"))
        let salt = Self.hex("3B04803DE51EE7C96423AB5B78D2")
        #expect(try SRTPKeyDerivation.derive(.rtpEncryption, length: 32, prf: prf, masterSalt: salt)
            == Self.hex("5BA1064E30EC51613CAD926C5A28EF731EC7FB397F70A960653CAF06554CD8C4"))
        #expect(try SRTPKeyDerivation.derive(.rtpSalt, length: 14, prf: prf, masterSalt: salt)
            == Self.hex("FA31791685CA444A9E07C6C64E93"))
    }

    // MARK: AES-CM keystream

    /// Appendix B.2: with SSRC 0 and index 0 the counter block is the salt shifted by 16 bits, and encrypting zeros
    /// yields the keystream; the appendix lists its first three blocks and blocks 0xFEFF to 0xFF01.
    @Test func rfc3711CounterModeKeystream() throws {
        let keys = SRTPSessionKeys(
            rtpKey: Self.hex("2B7E151628AED2A6ABF7158809CF4F3C"), rtpSalt: Self.hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD"),
            rtpAuthenticationKey: [UInt8](repeating: 0, count: 20), rtcpKey: [UInt8](repeating: 0, count: 16),
            rtcpSalt: [UInt8](repeating: 0, count: 14), rtcpAuthenticationKey: [UInt8](repeating: 0, count: 20))
        let transform = try SRTPTransform(profile: .aes128CMHMACSHA1_80, keys: keys)
        let blocks = 0xFF02
        var packet = [UInt8](repeating: 0, count: 12 + 16 * blocks + 10)
        packet[0] = 0x80
        let sealed = packet.withUnsafeMutableBytes { transform.sealRTP($0, headerLength: 12, ssrc: 0, index: 0) }
        #expect(sealed)
        func block(_ number: Int) -> [UInt8] { Array(packet[(12 + 16 * number)..<(28 + 16 * number)]) }
        #expect(block(0) == Self.hex("E03EAD0935C95E80E166B16DD92B4EB4"))
        #expect(block(1) == Self.hex("D23513162B02D0F72A43A2FE4A5F97AB"))
        #expect(block(2) == Self.hex("41E95B3BB0A2E8DD477901E4FCA894C0"))
        #expect(block(0xFEFF) == Self.hex("EC8CDF7398607CB0F2D21675EA9EA1E4"))
        #expect(block(0xFF00) == Self.hex("362B7C3C6773516318A077D7FC5073AE"))
        #expect(block(0xFF01) == Self.hex("6A2CC3787889374FBEB4C81B17BA6C44"))
    }

    // MARK: RFC 7714

    static let gcmKey128 = hex("000102030405060708090a0b0c0d0e0f")
    static let gcmKey256 = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
    /// "Quid pro quo".
    static let gcmSalt = hex("517569642070726f2071756f")
    static let vectorRTP = hex("""
        8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973 20646976 69736120 696e2070 61727465 73207472 6573
        """)
    static let vectorRTCP = hex("""
        81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef deadbeef
        deadbeef
        """)

    /// The RFC's vectors start from session keys: the same key and salt serve RTP and RTCP.
    static func vectorContext(_ profile: SRTPProfile) throws -> OpenSSLSRTPContext {
        let key = profile == .aeadAES128GCM ? gcmKey128 : gcmKey256
        return try OpenSSLSRTPContext(profile: profile, sessionKeys: SRTPSessionKeys(
            rtpKey: key, rtpSalt: gcmSalt, rtpAuthenticationKey: [], rtcpKey: key, rtcpSalt: gcmSalt,
            rtcpAuthenticationKey: []))
    }

    @Test(arguments: [
        (SRTPProfile.aeadAES128GCM, """
            8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca be633bd5 0d294e6f 42a5f47a 51c7d19b
            36de3adf 8833899d 7f27beb1 6a9152cf 765ee439 0cce
            """),
        (SRTPProfile.aeadAES256GCM, """
            8040f17b 8041f8d3 5501a0b2 32b1de78 a822fe12 ef9f78fa 332e33aa b1801238 9a58e2f3 b50b2a02 76ffae0f
            1ba63799 b87b7aa3 db36dfff d6b0f9bb 7878d7a7 6c13
            """),
    ])
    func rfc7714RTP(profile: SRTPProfile, expected: String) throws {
        var packet = Self.vectorRTP
        try Self.vectorContext(profile).protectRTP(&packet)
        #expect(packet == Self.hex(expected))
        let receiver = try Self.vectorContext(profile)
        try receiver.unprotectRTP(&packet)
        #expect(packet == Self.vectorRTP)
        var again = Self.hex(expected)
        #expect(throws: SRTPError.replay) { try receiver.unprotectRTP(&again) }
    }

    /// §17.1: SRTCP with AEAD_AES_128_GCM at SRTCP index 0x5d4 (a context starts at 1, so the transform is driven
    /// with the index directly), and the same packet opened by a context.
    @Test func rfc7714SRTCPEncrypted128() throws {
        let expected = Self.hex("""
            81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7 6c06f32d c676a5f1 730d6fda 4ce09b46
            86303ded 0bb9275b c84aa458 96cf4d2f c5abf872 45d9eade 800005d4
            """)
        let transform = try SRTPTransform(profile: .aeadAES128GCM, keys: SRTPSessionKeys(
            rtpKey: Self.gcmKey128, rtpSalt: Self.gcmSalt, rtpAuthenticationKey: [], rtcpKey: Self.gcmKey128,
            rtcpSalt: Self.gcmSalt, rtcpAuthenticationKey: []))
        var packet = Self.vectorRTCP + [UInt8](repeating: 0, count: transform.rtcpTrailerLength)
        let sealed = packet.withUnsafeMutableBytes { transform.sealRTCP($0, ssrc: 0x4d61_7273, index: 0x5d4) }
        #expect(sealed)
        #expect(packet == expected)
        try Self.vectorContext(.aeadAES128GCM).unprotectRTCP(&packet)
        #expect(packet == Self.vectorRTCP)
    }

    @Test(arguments: [
        // §17.2: AEAD_AES_256_GCM, encrypted.
        (SRTPProfile.aeadAES256GCM, """
            81c8000d 4d617273 d50ae4d1 f5ce5d30 4ba297e4 7d470c28 2c3ece5d bffe0a50 a2eaa5c1 110555be 8415f658
            c61de047 6f1b6fad 1d1eb30c 4446839f 57ff6f6c b26ac3be 800005d4
            """),
        // §17.3: AEAD_AES_128_GCM, authenticated only (E = 0).
        (SRTPProfile.aeadAES128GCM, """
            81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef
            deadbeef deadbeef 841dd968 3dd78ec9 2ae58790 125f62b3 000005d4
            """),
        // §17.4: AEAD_AES_256_GCM, authenticated only.
        (SRTPProfile.aeadAES256GCM, """
            81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930 4c756e61 deadbeef deadbeef deadbeef
            deadbeef deadbeef 91db4afb feee5a97 8fab4393 ed2615fe 000005d4
            """),
    ])
    func rfc7714SRTCPUnprotect(profile: SRTPProfile, wire: String) throws {
        let receiver = try Self.vectorContext(profile)
        var packet = Self.hex(wire)
        try receiver.unprotectRTCP(&packet)
        #expect(packet == Self.vectorRTCP)
        var tampered = Self.hex(wire)
        tampered[12] ^= 0x40
        #expect(throws: SRTPError.authenticationFailed) { try Self.vectorContext(profile).unprotectRTCP(&tampered) }
        var again = Self.hex(wire)
        #expect(throws: SRTPError.replay) { try receiver.unprotectRTCP(&again) }
    }
}
