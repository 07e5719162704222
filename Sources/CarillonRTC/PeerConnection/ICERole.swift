/// How a ``PeerConnection`` runs ICE.
public enum ICERole: Sendable, Equatable {
    /// ICE-lite (RFC 8445 §2.5), always controlled: the server's role. It answers checks and follows the peer's
    /// nomination; it never checks on its own.
    case lite
    /// A full agent in the controlling role: the client's role. It checks these remote candidates, nominates and
    /// keeps consent; it also answers the peer's checks.
    case controlling(remoteCandidates: [STUNAddress])
}
