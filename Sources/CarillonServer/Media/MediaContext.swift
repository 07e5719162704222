import CarillonRTC

/// What every meeting's media shares on this server: the UDP port, the DTLS certificate and the address announced
/// as the host candidate.
///
/// Threading: immutable; safe from any thread.
public struct MediaContext: Sendable {
    /// The one UDP port of all peer connections.
    public let port: MediaPort
    /// The server's DTLS certificate (its fingerprint goes into every answer).
    public let certificate: DTLSCertificate
    /// The address clients reach the port at, announced as the only candidate.
    public let candidateAddress: STUNAddress
    /// Where the meetings' media work is counted, per event loop.
    public let counters: MediaCounterDirectory

    /// Creates a context.
    public init(port: MediaPort, certificate: DTLSCertificate, candidateAddress: STUNAddress,
                counters: MediaCounterDirectory = MediaCounterDirectory()) {
        self.port = port
        self.certificate = certificate
        self.candidateAddress = candidateAddress
        self.counters = counters
    }
}
