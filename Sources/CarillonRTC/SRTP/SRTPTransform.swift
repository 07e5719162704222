/// The cryptographic part of SRTP and SRTCP for one profile and one set of session keys: builds each packet's IV and
/// encrypts, decrypts and authenticates in place at the offsets the caller gives. It keeps no per-stream state: the
/// caller (``OpenSSLSRTPContext``) parses packets, chooses indices and checks replay.
///
/// Packet layouts (the buffer always includes the trailer):
/// - SRTP: header (with CSRCs and extensions: authenticated, not encrypted) | payload (encrypted) | tag
///   (16 bytes GCM, RFC 7714 §8; 10 bytes HMAC-SHA1-80 over header, payload and rollover counter, RFC 3711 §4.2);
/// - SRTCP with GCM (RFC 7714 §9): first 8 bytes | payload | tag (16) | E || index (4); with AES-CM (RFC 3711 §3.4):
///   first 8 bytes | payload | E || index (4) | tag (10).
///
/// Cost: the packet's AES (and SHA-1) work, a few OpenSSL calls, no heap allocation.
/// Threading: not thread-safe; owned by one context.
final class SRTPTransform {
    private enum Ciphers {
        case gcm(rtp: AESGCMCipher, rtcp: AESGCMCipher)
        case counterMode(rtp: AESCounterCipher, rtpAuthentication: KeyedHMACSHA1,
                         rtcp: AESCounterCipher, rtcpAuthentication: KeyedHMACSHA1)
    }

    /// Length of the HMAC-SHA1 tag of AES128_CM_HMAC_SHA1_80.
    static let truncatedHMACLength = 10
    /// Length of SRTCP's E flag and index word.
    static let srtcpIndexLength = 4

    /// The profile the keys belong to.
    let profile: SRTPProfile
    /// Bytes protection adds to an RTP packet (the tag).
    let rtpTrailerLength: Int
    /// Bytes protection adds to an RTCP compound packet (tag and index word).
    let rtcpTrailerLength: Int
    private let ciphers: Ciphers
    private let rtpSalt: [UInt8]
    private let rtcpSalt: [UInt8]

    /// Keys the ciphers for `profile` (OpenSSL contexts are made here, once).
    init(profile: SRTPProfile, keys: SRTPSessionKeys) throws(SRTPError) {
        self.profile = profile
        rtpTrailerLength = profile.rtpTrailerLength
        rtcpTrailerLength = profile.rtcpTrailerLength
        rtpSalt = keys.rtpSalt
        rtcpSalt = keys.rtcpSalt
        switch profile {
        case .aeadAES128GCM, .aeadAES256GCM:
            ciphers = .gcm(rtp: try AESGCMCipher(key: keys.rtpKey), rtcp: try AESGCMCipher(key: keys.rtcpKey))
        case .aes128CMHMACSHA1_80:
            ciphers = .counterMode(rtp: try AESCounterCipher(key: keys.rtpKey),
                                   rtpAuthentication: KeyedHMACSHA1(key: keys.rtpAuthenticationKey),
                                   rtcp: try AESCounterCipher(key: keys.rtcpKey),
                                   rtcpAuthentication: KeyedHMACSHA1(key: keys.rtcpAuthenticationKey))
        }
    }

    // MARK: SRTP

    /// Encrypts the payload of `packet` (from `headerLength` to the tag) and writes the tag into its last
    /// ``rtpTrailerLength`` bytes, for packet index `index` of `ssrc`. False only if OpenSSL fails.
    func sealRTP(_ packet: UnsafeMutableRawBufferPointer, headerLength: Int, ssrc: UInt32, index: UInt64) -> Bool {
        let tagStart = packet.count - rtpTrailerLength
        let payload = UnsafeMutableRawBufferPointer(rebasing: packet[headerLength..<tagStart])
        switch ciphers {
        case .gcm(let cipher, _):
            return withIV(salt: rtpSalt, ssrc: ssrc, ssrcOffset: 2, index: index, indexEnd: 12) { iv in
                cipher.seal(iv: iv, associatedData: UnsafeRawBufferPointer(rebasing: packet[..<headerLength]),
                            moreAssociatedData: UnsafeRawBufferPointer(start: nil, count: 0), payload: payload,
                            tag: packet.baseAddress! + tagStart)
            }
        case .counterMode(let cipher, let authentication, _, _):
            guard withIV(salt: rtpSalt, ssrc: ssrc, ssrcOffset: 4, index: index, indexEnd: 14, {
                cipher.apply(iv: $0, to: payload)
            }) else { return false }
            authentication.authenticate(UnsafeRawBufferPointer(rebasing: packet[..<tagStart]),
                                        suffix: UInt32(truncatingIfNeeded: index >> 16),
                                        into: UnsafeMutableRawBufferPointer(rebasing: packet[tagStart...]))
            return true
        }
    }

    /// Verifies the tag in the last ``rtpTrailerLength`` bytes of `packet` for packet index `index` of `ssrc` and,
    /// if it verifies, decrypts the payload in place. False when authentication fails.
    func openRTP(_ packet: UnsafeMutableRawBufferPointer, headerLength: Int, ssrc: UInt32, index: UInt64) -> Bool {
        let tagStart = packet.count - rtpTrailerLength
        let payload = UnsafeMutableRawBufferPointer(rebasing: packet[headerLength..<tagStart])
        switch ciphers {
        case .gcm(let cipher, _):
            return withIV(salt: rtpSalt, ssrc: ssrc, ssrcOffset: 2, index: index, indexEnd: 12) { iv in
                cipher.open(iv: iv, associatedData: UnsafeRawBufferPointer(rebasing: packet[..<headerLength]),
                            moreAssociatedData: UnsafeRawBufferPointer(start: nil, count: 0), payload: payload,
                            tag: packet.baseAddress! + tagStart)
            }
        case .counterMode(let cipher, let authentication, _, _):
            // Authenticate before decrypting (RFC 3711 §3.3): a forged packet is never decrypted.
            guard authentication.verify(UnsafeRawBufferPointer(rebasing: packet[..<tagStart]),
                                        suffix: UInt32(truncatingIfNeeded: index >> 16),
                                        tag: UnsafeRawBufferPointer(rebasing: packet[tagStart...])) else { return false }
            return withIV(salt: rtpSalt, ssrc: ssrc, ssrcOffset: 4, index: index, indexEnd: 14) {
                cipher.apply(iv: $0, to: payload)
            }
        }
    }

    // MARK: SRTCP

    /// Encrypts a compound packet that fills `packet` up to its last ``rtcpTrailerLength`` bytes, and writes the
    /// E flag, `index` (31 bits) and the tag there. False only if OpenSSL fails.
    func sealRTCP(_ packet: UnsafeMutableRawBufferPointer, ssrc: UInt32, index: UInt32) -> Bool {
        let plainEnd = packet.count - rtcpTrailerLength
        let payload = UnsafeMutableRawBufferPointer(rebasing: packet[8..<plainEnd])
        let indexWord = 0x8000_0000 | index
        switch ciphers {
        case .gcm(_, let cipher):
            let indexStart = packet.count - Self.srtcpIndexLength
            packet.storeBytes(of: indexWord.bigEndian, toByteOffset: indexStart, as: UInt32.self)
            return withIV(salt: rtcpSalt, ssrc: ssrc, ssrcOffset: 2, index: UInt64(index), indexEnd: 12) { iv in
                cipher.seal(iv: iv, associatedData: UnsafeRawBufferPointer(rebasing: packet[..<8]),
                            moreAssociatedData: UnsafeRawBufferPointer(rebasing: packet[indexStart...]),
                            payload: payload, tag: packet.baseAddress! + plainEnd)
            }
        case .counterMode(_, _, let cipher, let authentication):
            packet.storeBytes(of: indexWord.bigEndian, toByteOffset: plainEnd, as: UInt32.self)
            guard withIV(salt: rtcpSalt, ssrc: ssrc, ssrcOffset: 4, index: UInt64(index), indexEnd: 14, {
                cipher.apply(iv: $0, to: payload)
            }) else { return false }
            let tagStart = plainEnd + Self.srtcpIndexLength
            authentication.authenticate(UnsafeRawBufferPointer(rebasing: packet[..<tagStart]), suffix: nil,
                                        into: UnsafeMutableRawBufferPointer(rebasing: packet[tagStart...]))
            return true
        }
    }

    /// The E flag and index word of an SRTCP packet of at least 8 + ``rtcpTrailerLength`` bytes.
    func srtcpIndexWord(_ packet: UnsafeRawBufferPointer) -> UInt32 {
        let offset = switch ciphers {
        case .gcm: packet.count - Self.srtcpIndexLength
        case .counterMode: packet.count - rtcpTrailerLength
        }
        return UInt32(bigEndian: packet.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Verifies an SRTCP packet's tag and, when its E flag is set, decrypts it in place. False when authentication
    /// fails. `index` is the packet's own index (from ``srtcpIndexWord(_:)``).
    func openRTCP(_ packet: UnsafeMutableRawBufferPointer, ssrc: UInt32, index: UInt32, encrypted: Bool) -> Bool {
        let plainEnd = packet.count - rtcpTrailerLength
        let payload = UnsafeMutableRawBufferPointer(rebasing: packet[8..<plainEnd])
        switch ciphers {
        case .gcm(_, let cipher):
            let indexStart = packet.count - Self.srtcpIndexLength
            // Unencrypted SRTCP (E = 0) authenticates the whole packet as associated data (RFC 7714 §9.3).
            let associatedEnd = encrypted ? 8 : plainEnd
            return withIV(salt: rtcpSalt, ssrc: ssrc, ssrcOffset: 2, index: UInt64(index), indexEnd: 12) { iv in
                cipher.open(iv: iv, associatedData: UnsafeRawBufferPointer(rebasing: packet[..<associatedEnd]),
                            moreAssociatedData: UnsafeRawBufferPointer(rebasing: packet[indexStart...]),
                            payload: encrypted ? payload : UnsafeMutableRawBufferPointer(start: nil, count: 0),
                            tag: packet.baseAddress! + plainEnd)
            }
        case .counterMode(_, _, let cipher, let authentication):
            let tagStart = packet.count - Self.truncatedHMACLength
            guard authentication.verify(UnsafeRawBufferPointer(rebasing: packet[..<tagStart]), suffix: nil,
                                        tag: UnsafeRawBufferPointer(rebasing: packet[tagStart...])) else { return false }
            guard encrypted else { return true }
            return withIV(salt: rtcpSalt, ssrc: ssrc, ssrcOffset: 4, index: UInt64(index), indexEnd: 14) {
                cipher.apply(iv: $0, to: payload)
            }
        }
    }

    // MARK: IV

    /// Runs `body` with the IV for one packet, on the stack: the salt (padded with zeros to 16 bytes) XOR the SSRC
    /// at `ssrcOffset` XOR the low 48 bits of `index` in the 6 bytes before `indexEnd`. That single rule gives
    /// AES-CM's counter block (SSRC at 4, index in 8..<14, RFC 3711 §4.1.1) and GCM's 12-byte IV (SSRC at 2;
    /// SRTP's rollover counter and sequence number in 6..<12, SRTCP's 31-bit index in 8..<12; RFC 7714 §8.1, §9.1).
    private func withIV(salt: [UInt8], ssrc: UInt32, ssrcOffset: Int, index: UInt64, indexEnd: Int,
                        _ body: (UnsafeRawPointer) -> Bool) -> Bool {
        var block: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &block) { iv in
            salt.withUnsafeBytes { iv.copyMemory(from: $0) }
            for shift in 0..<4 { iv[ssrcOffset + shift] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * shift)) }
            for shift in 0..<6 { iv[indexEnd - 6 + shift] ^= UInt8(truncatingIfNeeded: index >> (40 - 8 * shift)) }
            return body(UnsafeRawPointer(iv.baseAddress!))
        }
    }
}
