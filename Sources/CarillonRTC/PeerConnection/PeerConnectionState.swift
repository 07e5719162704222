/// Where a ``PeerConnection`` stands.
public enum PeerConnectionState: Sendable, Equatable {
    /// Created; ICE has not found a path yet.
    case checking
    /// ICE found a path; DTLS is under way.
    case securing
    /// DTLS done, SRTP keyed: media flows.
    case connected
    /// ICE or DTLS failed.
    case failed(PeerConnectionFailure)
    /// Closed by either side.
    case closed
}
