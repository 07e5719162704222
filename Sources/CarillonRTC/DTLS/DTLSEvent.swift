/// Something a ``DTLSEndpoint`` reports to its owner.
public enum DTLSEvent: Sendable, Equatable {
    /// Handshake done, peer fingerprint verified, SRTP profile negotiated: the SRTP keys.
    case connected(DTLSKeyingMaterial)
    /// The association failed: handshake error, fingerprint mismatch, no common SRTP profile, fatal alert received,
    /// or handshake timeout.
    case failed(DTLSError)
    /// The peer sent close_notify.
    case closed
}
