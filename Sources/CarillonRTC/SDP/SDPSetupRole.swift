/// The DTLS role attribute `a=setup` (RFC 4145 §4, RFC 8842).
public enum SDPSetupRole: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Either role; what offers carry.
    case actpass
    /// The writer is the DTLS client.
    case active
    /// The writer is the DTLS server.
    case passive
    /// No connection now.
    case holdconn
}
