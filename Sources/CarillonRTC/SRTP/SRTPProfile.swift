/// The SRTP protection profiles Carillon negotiates, in order of preference (DTLS `use_srtp`, RFC 5764 / 7714).
public enum SRTPProfile: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    /// AEAD_AES_128_GCM (0x0007).
    case aeadAES128GCM = 0x0007
    /// AEAD_AES_256_GCM (0x0008).
    case aeadAES256GCM = 0x0008
    /// SRTP_AES128_CM_HMAC_SHA1_80 (0x0001).
    case aes128CMHMACSHA1_80 = 0x0001

    /// Master key length in bytes.
    public var keyLength: Int {
        switch self {
        case .aeadAES128GCM, .aes128CMHMACSHA1_80: 16
        case .aeadAES256GCM: 32
        }
    }

    /// Master salt length in bytes.
    public var saltLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: 12
        case .aes128CMHMACSHA1_80: 14
        }
    }

    /// Bytes protecting an RTP packet appends: the authentication tag (16 for GCM, RFC 7714 §7.1; 10 for
    /// HMAC-SHA1-80, RFC 3711 §4.2). A packet array with this much spare capacity is protected without reallocating.
    public var rtpTrailerLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: 16
        case .aes128CMHMACSHA1_80: 10
        }
    }

    /// The longest ``rtpTrailerLength`` of any profile: the spare capacity a packet array is built with before (or
    /// whatever) its connection's profile, so protecting it never reallocates.
    public static let maximumRTPTrailerLength = 16

    /// Bytes protecting an RTCP compound packet appends: the tag and the 4-byte E flag and SRTCP index.
    public var rtcpTrailerLength: Int { rtpTrailerLength + 4 }

    /// The OpenSSL name used in `SSL_CTX_set_tlsext_use_srtp`.
    public var openSSLName: String {
        switch self {
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: "SRTP_AEAD_AES_256_GCM"
        case .aes128CMHMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        }
    }

    /// The RFC name.
    public var description: String {
        switch self {
        case .aeadAES128GCM: "AEAD_AES_128_GCM"
        case .aeadAES256GCM: "AEAD_AES_256_GCM"
        case .aes128CMHMACSHA1_80: "AES128_CM_HMAC_SHA1_80"
        }
    }
}
