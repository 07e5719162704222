/// Why SRTP could not protect or unprotect a packet.
public enum SRTPError: Error, Equatable, CustomStringConvertible {
    /// The master key or salt has the wrong length for the profile.
    case badKeyLength(expected: Int, got: Int)
    /// The authentication tag did not verify (tampered or wrong key).
    case authenticationFailed
    /// The packet was already received, or is older than the replay window remembers (replay protection).
    case replay
    /// The packet is too short or malformed for SRTP.
    case malformedPacket
    /// The SRTCP index (2^31 compound packets per SSRC) is used up: the keys must be renegotiated.
    case indexExhausted
    /// OpenSSL could not set up or run a cipher (``OpenSSLSRTPContext``; out of memory or a broken installation).
    case openSSLFailure
    /// Any other libsrtp2 status, with its number (``LibSRTPContext``).
    case failure(status: Int32)

    public var description: String {
        switch self {
        case .badKeyLength(let expected, let got): "SRTP key material must be \(expected) bytes, got \(got)"
        case .authenticationFailed: "SRTP authentication failed"
        case .replay: "SRTP replay detected"
        case .malformedPacket: "packet too short or malformed for SRTP"
        case .indexExhausted: "SRTCP index exhausted: rekey"
        case .openSSLFailure: "OpenSSL failed to run an SRTP cipher"
        case .failure(let status): "libsrtp2 failed with status \(status)"
        }
    }
}
