/// SRTP key derivation (RFC 3711 §4.3) with a key derivation rate of 0, as DTLS-SRTP uses it: the AES-CM PRF keyed
/// with the master key, run once per session key at context creation.
///
/// AES-256 profiles use the same PRF keyed with AES-256 (RFC 6188). A GCM profile's 12-byte master salt fills the
/// first 12 bytes of the PRF's 14-byte salt field, the rest zero: what libsrtp, and so browsers, do.
enum SRTPKeyDerivation {
    /// The PRF labels of RFC 3711 §4.3.1 and §4.3.2.
    enum Label: UInt8 {
        case rtpEncryption = 0x00
        case rtpAuthentication = 0x01
        case rtpSalt = 0x02
        case rtcpEncryption = 0x03
        case rtcpAuthentication = 0x04
        case rtcpSalt = 0x05
    }

    /// Length of HMAC-SHA1 session keys (RFC 3711 §4.2.1 recommends n_a = 160 bits).
    static let authenticationKeyLength = 20

    /// Derives every session key `profile` needs from a master key and salt of the profile's lengths.
    static func sessionKeys(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPError)
        -> SRTPSessionKeys {
        guard masterKey.count == profile.keyLength else {
            throw .badKeyLength(expected: profile.keyLength, got: masterKey.count)
        }
        guard masterSalt.count == profile.saltLength else {
            throw .badKeyLength(expected: profile.saltLength, got: masterSalt.count)
        }
        let prf = try AESCounterCipher(key: masterKey)
        func derive(_ label: Label, _ length: Int) throws(SRTPError) -> [UInt8] {
            try Self.derive(label, length: length, prf: prf, masterSalt: masterSalt)
        }
        let authentication = profile == .aes128CMHMACSHA1_80 ? authenticationKeyLength : 0
        return SRTPSessionKeys(
            rtpKey: try derive(.rtpEncryption, profile.keyLength),
            rtpSalt: try derive(.rtpSalt, profile.saltLength),
            rtpAuthenticationKey: try derive(.rtpAuthentication, authentication),
            rtcpKey: try derive(.rtcpEncryption, profile.keyLength),
            rtcpSalt: try derive(.rtcpSalt, profile.saltLength),
            rtcpAuthenticationKey: try derive(.rtcpAuthentication, authentication))
    }

    /// The first `length` bytes of the PRF's keystream for `label`: AES-CM over zeros from the counter block
    /// (master salt XOR label << 48) * 2^16.
    static func derive(_ label: Label, length: Int, prf: AESCounterCipher, masterSalt: [UInt8]) throws(SRTPError)
        -> [UInt8] {
        precondition(masterSalt.count <= 14, "the PRF's salt field is 112 bits")
        var counter = [UInt8](repeating: 0, count: 16)
        counter.replaceSubrange(0..<masterSalt.count, with: masterSalt)
        // key_id = label || r with r = 0 (rate 0): the label lands 7 bytes from the end of the 14-byte salt field.
        counter[7] ^= label.rawValue
        var output = [UInt8](repeating: 0, count: length)
        let applied = counter.withUnsafeBytes { iv in
            output.withUnsafeMutableBytes { prf.apply(iv: iv.baseAddress!, to: $0) }
        }
        guard applied else { throw .openSSLFailure }
        return output
    }
}
