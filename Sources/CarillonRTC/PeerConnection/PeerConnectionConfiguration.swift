/// Everything a ``PeerConnection`` needs from the negotiated offer and answer.
public struct PeerConnectionConfiguration: Sendable {
    /// ICE lite (server) or controlling (client).
    public var iceRole: ICERole
    /// This side's ICE credentials, as announced in its SDP.
    public var localICE: ICECredentials
    /// The peer's ICE credentials, from its SDP.
    public var remoteICE: ICECredentials
    /// Which side of the DTLS handshake this side takes (from `a=setup`: `active` is the client).
    public var dtlsRole: DTLSRole
    /// This side's certificate, whose fingerprint its SDP announces.
    public var certificate: DTLSCertificate
    /// The fingerprint the peer's SDP announces; a certificate that does not match fails the connection.
    public var remoteFingerprint: DTLSFingerprint
    /// SRTP profiles offered in DTLS `use_srtp`, in order of preference.
    public var srtpProfiles: [SRTPProfile]
    /// The ICE tie-breaker of a controlling agent.
    public var tieBreaker: UInt64

    /// Creates a configuration; the tie-breaker defaults to a random value.
    public init(iceRole: ICERole, localICE: ICECredentials, remoteICE: ICECredentials, dtlsRole: DTLSRole,
                certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
                srtpProfiles: [SRTPProfile] = SRTPProfile.allCases, tieBreaker: UInt64 = .random(in: 1...UInt64.max)) {
        self.iceRole = iceRole
        self.localICE = localICE
        self.remoteICE = remoteICE
        self.dtlsRole = dtlsRole
        self.certificate = certificate
        self.remoteFingerprint = remoteFingerprint
        self.srtpProfiles = srtpProfiles
        self.tieBreaker = tieBreaker
    }
}
