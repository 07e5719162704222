/// Why a ``PeerConnection`` failed.
public enum PeerConnectionFailure: Error, Sendable, Equatable {
    /// No candidate pair answered, or consent to send expired (RFC 7675).
    case ice
    /// The DTLS handshake failed: a bad certificate fingerprint, no common SRTP profile, an alert or a timeout.
    case dtls(DTLSError)
    /// SRTP contexts could not be created from the exported keys.
    case srtp(SRTPError)
}
