/// Where a ``DTLSEndpoint`` is in its life.
public enum DTLSState: Sendable, Equatable {
    /// Created, not started.
    case new
    /// Started; the handshake is under way (or, for a server, awaited).
    case handshaking
    /// Handshake done, peer fingerprint verified, SRTP keys exported.
    case connected
    /// Closed by either side with close_notify.
    case closed
    /// The handshake failed, timed out, or the peer sent a fatal alert.
    case failed
}
