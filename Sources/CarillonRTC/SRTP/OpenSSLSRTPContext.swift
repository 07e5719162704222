/// ``SRTPContext`` implemented directly on OpenSSL's EVP ciphers: AEAD_AES_128_GCM and AEAD_AES_256_GCM (RFC 7714),
/// AES128_CM_HMAC_SHA1_80 (RFC 3711), with key derivation, per-SSRC rollover counters and replay protection done
/// here, following libsrtp's policy as ``LibSRTPContext`` sets it (its test oracle): a 1024-packet RTP replay
/// window, SRTCP's own 128-packet window, and protecting an RTP index a second time allowed (a sender may
/// retransmit a packet under its original sequence number, libsrtp's `allow_repeat_tx`).
///
/// Why: libsrtp2 on Debian is built on NSS, which sets up cipher contexts for every packet (10 heap allocations per
/// GCM packet, 28 per AES-CM packet). Here the OpenSSL contexts are keyed once at creation and only given a new IV
/// per packet, so protecting and unprotecting allocate nothing in steady state; the first packet of a new SSRC
/// adds one entry to a dictionary.
///
/// Cost per packet: the AES-GCM, or AES-CTR and HMAC-SHA1, work on the packet, a few OpenSSL calls and a dictionary
/// lookup. Protecting appends the trailer to the array: with spare capacity for it (``SRTPProfile/rtpTrailerLength``,
/// ``SRTPProfile/rtcpTrailerLength``) that happens in place; unprotecting shrinks the array in place.
///
/// One context holds one key: use one to protect what this side sends and another, with the peer's key, to
/// unprotect what it receives. Protect and unprotect keep separate per-SSRC state.
///
/// Threading: not thread-safe; one owner (the session's event loop) uses a context. Creating contexts is safe from
/// any thread.
public final class OpenSSLSRTPContext: SRTPContext {
    /// The profile the context was made for.
    public let profile: SRTPProfile
    private let transform: SRTPTransform
    private var sentRTP: [UInt32: SRTPReplayWindow] = [:]
    private var receivedRTP: [UInt32: SRTPReplayWindow] = [:]
    /// The last SRTCP index sent per SSRC (the first packet gets 1, as with libsrtp).
    private var sentRTCP: [UInt32: UInt32] = [:]
    private var receivedRTCP: [UInt32: SRTCPReplayWindow] = [:]

    // Appended as one block copy to make room for a trailer.
    private static let trailerRoom = [UInt8](repeating: 0, count: 32)

    /// Creates a context from the master key and salt DTLS exported for one direction (RFC 5764 §4.2); derives the
    /// session keys and keys the OpenSSL contexts (a few allocations, once).
    public convenience init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPError) {
        let keys = try SRTPKeyDerivation.sessionKeys(profile: profile, masterKey: masterKey, masterSalt: masterSalt)
        try self.init(profile: profile, sessionKeys: keys)
    }

    /// Creates a context from session keys directly (the RFC 7714 test vectors give those, not master keys).
    init(profile: SRTPProfile, sessionKeys: SRTPSessionKeys) throws(SRTPError) {
        self.profile = profile
        transform = try SRTPTransform(profile: profile, keys: sessionKeys)
    }

    // MARK: SRTP

    /// Encrypts the payload and appends the tag, for the packet index this SSRC's sequence number reaches (its
    /// rollover counter follows wraps). Throws ``SRTPError/replay`` for an index more than 1024 behind the highest
    /// sent, ``SRTPError/malformedPacket`` when the header runs past the packet; the packet is then unchanged.
    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard let headerLength = Self.rtpHeaderLength(packet, trailer: 0) else { throw .malformedPacket }
        let ssrc = Self.readUInt32(packet, at: 8)
        let sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
        // The window is updated where it lies in the dictionary: one lookup, and none of its 136 bytes copied out
        // and back, on a path every sent packet takes. A new SSRC's empty window takes any number.
        let estimate: SRTPReplayWindow.Estimate?
        if let slot = sentRTP.index(forKey: ssrc) {
            estimate = sentRTP.values[slot].send(sequence)
        } else {
            var window = SRTPReplayWindow()
            estimate = window.send(sequence)
            sentRTP[ssrc] = window
        }
        guard let estimate else { throw .replay }
        let trailer = transform.rtpTrailerLength
        packet.append(contentsOf: Self.trailerRoom[..<trailer])
        let sealed = packet.withUnsafeMutableBytes {
            transform.sealRTP($0, headerLength: headerLength, ssrc: ssrc, index: estimate.index)
        }
        guard sealed else {
            packet.removeLast(trailer)
            throw .openSSLFailure
        }
    }

    /// Verifies and decrypts in place and removes the tag. Throws ``SRTPError/replay`` for an index already
    /// received or older than the window, ``SRTPError/authenticationFailed`` when the tag does not verify (a GCM
    /// packet's payload is then garbage), ``SRTPError/malformedPacket`` when it is too short; nothing is recorded
    /// for a packet that fails.
    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        let trailer = transform.rtpTrailerLength
        guard let headerLength = Self.rtpHeaderLength(packet, trailer: trailer) else { throw .malformedPacket }
        let ssrc = Self.readUInt32(packet, at: 8)
        let sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
        // A known SSRC's window is read and updated in place (see protectRTP); an unknown one's is added only once a
        // packet of it authenticates, so forged SSRCs leave nothing behind.
        let slot = receivedRTP.index(forKey: ssrc)
        let estimate = slot.map { receivedRTP.values[$0].estimate(sequence) } ?? SRTPReplayWindow().estimate(sequence)
        // Replay is checked first, as libsrtp does: a replayed packet is reported as such whatever its tag.
        if let slot { guard receivedRTP.values[slot].check(estimate) == .fresh else { throw .replay } }
        let opened = packet.withUnsafeMutableBytes {
            transform.openRTP($0, headerLength: headerLength, ssrc: ssrc, index: estimate.index)
        }
        guard opened else { throw .authenticationFailed }
        if let slot {
            receivedRTP.values[slot].accept(estimate)
        } else {
            var window = SRTPReplayWindow()
            window.accept(estimate)
            receivedRTP[ssrc] = window
        }
        packet.removeLast(trailer)
    }

    // MARK: SRTCP

    /// Encrypts a compound packet after its first 8 bytes and appends the tag and the E flag with this SSRC's next
    /// SRTCP index (1 first, as libsrtp). Throws ``SRTPError/malformedPacket`` below 8 bytes and
    /// ``SRTPError/indexExhausted`` after 2^31 - 1 packets of one SSRC.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        guard packet.count >= 8 else { throw .malformedPacket }
        let ssrc = Self.readUInt32(packet, at: 4)
        let previous = sentRTCP[ssrc] ?? 0
        guard previous < 0x7FFF_FFFF else { throw .indexExhausted }
        sentRTCP[ssrc] = previous + 1
        let trailer = transform.rtcpTrailerLength
        packet.append(contentsOf: Self.trailerRoom[..<trailer])
        let sealed = packet.withUnsafeMutableBytes { transform.sealRTCP($0, ssrc: ssrc, index: previous + 1) }
        guard sealed else {
            packet.removeLast(trailer)
            throw .openSSLFailure
        }
    }

    /// Verifies an SRTCP packet, decrypts it in place when its E flag says it is encrypted, and removes the
    /// trailer. Throws as ``unprotectRTP(_:)`` does, with SRTCP's own 128-packet replay window.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        let trailer = transform.rtcpTrailerLength
        guard packet.count >= 8 + trailer else { throw .malformedPacket }
        let ssrc = Self.readUInt32(packet, at: 4)
        let word = packet.withUnsafeBytes { transform.srtcpIndexWord($0) }
        let index = word & 0x7FFF_FFFF
        var window = receivedRTCP[ssrc] ?? SRTCPReplayWindow()
        guard window.allows(index) else { throw .replay }
        let opened = packet.withUnsafeMutableBytes {
            transform.openRTCP($0, ssrc: ssrc, index: index, encrypted: word & 0x8000_0000 != 0)
        }
        guard opened else { throw .authenticationFailed }
        window.accept(index)
        receivedRTCP[ssrc] = window
        packet.removeLast(trailer)
    }

    // MARK: Parsing

    /// The length of the RTP header (fixed part, CSRCs, extension block) if it fits in the packet before a trailer
    /// of `trailer` bytes; nil if the packet is too short for what its header announces.
    static func rtpHeaderLength(_ packet: [UInt8], trailer: Int) -> Int? {
        guard packet.count >= 12 + trailer else { return nil }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard packet.count >= length + 4 + trailer else { return nil }
            length += 4 + 4 * (Int(packet[length + 2]) << 8 | Int(packet[length + 3]))
        }
        return length + trailer <= packet.count ? length : nil
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
