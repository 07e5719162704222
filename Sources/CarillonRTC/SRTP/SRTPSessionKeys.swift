/// The session keys and salts one SRTP master key yields (RFC 3711 §4.3), for RTP and RTCP.
///
/// GCM profiles have no authentication keys (the AEAD tag authenticates); their salts are 12 bytes, AES-CM's 14.
struct SRTPSessionKeys {
    /// The RTP encryption key (16 or 32 bytes).
    var rtpKey: [UInt8]
    /// The RTP salt.
    var rtpSalt: [UInt8]
    /// The RTP HMAC-SHA1 key (20 bytes), empty for GCM.
    var rtpAuthenticationKey: [UInt8]
    /// The RTCP encryption key.
    var rtcpKey: [UInt8]
    /// The RTCP salt.
    var rtcpSalt: [UInt8]
    /// The RTCP HMAC-SHA1 key, empty for GCM.
    var rtcpAuthenticationKey: [UInt8]
}
