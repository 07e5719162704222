/// Why SRTP could not protect or unprotect a packet.
public enum SRTPError: Error, Equatable, CustomStringConvertible {
    /// The master key or salt has the wrong length for the profile.
    case badKeyLength(expected: Int, got: Int)
    /// The authentication tag did not verify (tampered or wrong key).
    case authenticationFailed
    /// The packet was already received (replay protection).
    case replay
    /// The packet is too short or malformed for SRTP.
    case malformedPacket
    /// Any other libsrtp2 status, with its number.
    case failure(status: Int32)

    public var description: String {
        switch self {
        case .badKeyLength(let expected, let got): "SRTP key material must be \(expected) bytes, got \(got)"
        case .authenticationFailed: "SRTP authentication failed"
        case .replay: "SRTP replay detected"
        case .malformedPacket: "packet too short or malformed for SRTP"
        case .failure(let status): "libsrtp2 failed with status \(status)"
        }
    }
}
