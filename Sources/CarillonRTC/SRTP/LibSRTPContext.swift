import CCarillonSRTP

/// ``SRTPContext`` implemented with libsrtp2: replay protection on, rollover counters kept by libsrtp.
///
/// The product uses ``OpenSSLSRTPContext``; this one is its test oracle and its side-by-side benchmark. Debian's
/// libsrtp2 is built on NSS, which allocates on the heap for every packet (10 allocations per GCM packet, 28 per
/// AES-CM packet).
///
/// Threading: not thread-safe; one owner uses a context. Creating contexts is safe from any thread.
public final class LibSRTPContext: SRTPContext {
    /// Whether the context protects what this side sends or unprotects what it receives.
    public enum Direction: Sendable {
        /// Protects packets to send.
        case outbound
        /// Unprotects received packets.
        case inbound
    }

    public let profile: SRTPProfile
    private let session: srtp_t

    // Room libsrtp may write after a packet; appended as one block copy.
    private static let trailerRoom = [UInt8](repeating: 0, count: Int(carillon_srtp_max_trailer_length()))

    // srtp_init must run once per process before any context.
    private static let initialized: Bool = srtp_init() == srtp_err_status_ok

    /// Creates a context from the master key and salt exported by DTLS for this direction.
    public init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8], direction: Direction) throws(SRTPError) {
        guard Self.initialized else { throw .failure(status: -1) }
        guard masterKey.count == profile.keyLength else { throw .badKeyLength(expected: profile.keyLength, got: masterKey.count) }
        guard masterSalt.count == profile.saltLength else {
            throw .badKeyLength(expected: profile.saltLength, got: masterSalt.count)
        }
        self.profile = profile
        var policy = srtp_policy_t()
        switch profile {
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        case .aes128CMHMACSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        }
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = 1024
        policy.allow_repeat_tx = 1
        policy.next = nil
        var material = masterKey + masterSalt
        var created: srtp_t?
        let status = material.withUnsafeMutableBufferPointer { key -> srtp_err_status_t in
            policy.key = key.baseAddress
            return srtp_create(&created, &policy)
        }
        guard status == srtp_err_status_ok, let created else { throw .failure(status: Int32(status.rawValue)) }
        session = created
    }

    deinit { srtp_dealloc(session) }

    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, grow: true) { srtp_protect(session, $0, $1) }
    }

    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, grow: false) { srtp_unprotect(session, $0, $1) }
    }

    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, grow: true) { srtp_protect_rtcp(session, $0, $1) }
    }

    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, grow: false) { srtp_unprotect_rtcp(session, $0, $1) }
    }

    private func transform(
        _ packet: inout [UInt8],
        grow: Bool,
        _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t
    ) throws(SRTPError) {
        guard packet.count >= 8 else { throw .malformedPacket }
        var length = Int32(packet.count)
        // libsrtp writes its trailer right after the packet: make room first.
        if grow { packet.append(contentsOf: Self.trailerRoom) }
        let status = packet.withUnsafeMutableBytes { call($0.baseAddress!, &length) }
        guard status == srtp_err_status_ok else {
            if grow { packet.removeLast(Self.trailerRoom.count) }
            switch status {
            case srtp_err_status_auth_fail: throw .authenticationFailed
            case srtp_err_status_replay_fail, srtp_err_status_replay_old: throw .replay
            case srtp_err_status_bad_param, srtp_err_status_parse_err: throw .malformedPacket
            default: throw .failure(status: Int32(status.rawValue))
            }
        }
        packet.removeLast(packet.count - Int(length))
    }
}
