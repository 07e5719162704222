/// Which side of the DTLS handshake an endpoint plays (the SDP `a=setup` attribute decides it).
public enum DTLSRole: Sendable, Equatable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server
}
