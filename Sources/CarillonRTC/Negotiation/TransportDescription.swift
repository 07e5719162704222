import NIOCore

/// The transport half of an SDP for one BUNDLE group: ICE credentials, DTLS fingerprint and setup role, candidates.
///
/// Read it from the peer's description with ``init(remote:)``; write this side's into its media sections with
/// ``apply(to:)``. It turns the negotiated roles into a ``PeerConnectionConfiguration``.
public struct TransportDescription: Sendable, Equatable {
    /// ICE credentials.
    public var ice: ICECredentials
    /// The DTLS certificate fingerprint.
    public var fingerprint: DTLSFingerprint
    /// The DTLS setup attribute (`actpass` in offers, `active` or `passive` in answers).
    public var setup: SDPSetupRole
    /// ICE candidates.
    public var candidates: [ICECandidate]
    /// Whether the side is an ICE-lite agent (`a=ice-lite`).
    public var iceLite: Bool

    /// Creates a description of this side's transport.
    public init(ice: ICECredentials, fingerprint: DTLSFingerprint, setup: SDPSetupRole, candidates: [ICECandidate],
                iceLite: Bool = false) {
        self.ice = ice
        self.fingerprint = fingerprint
        self.setup = setup
        self.candidates = candidates
        self.iceLite = iceLite
    }

    /// Reads the transport of the peer's description: the first accepted m-line of the first BUNDLE group (the
    /// tagged section of RFC 8843, or else the first accepted m-line), with session-level values where the media
    /// section has none. Candidates of the other sections are for transports that BUNDLE discards.
    public init(remote description: SessionDescription) throws(SDPNegotiationError) {
        let accepted = description.media.filter { !$0.isRejected }
        let bundled = description.bundleGroups.first.map { group in accepted.filter { $0.mid.map(group.contains) ?? false } }
        let sections = (bundled?.isEmpty == false ? bundled! : Array(accepted.prefix(1)))
        guard let first = sections.first else { throw .noAcceptedMedia }
        guard let ufrag = first.iceUsernameFragment ?? description.iceUsernameFragment,
              let password = first.icePassword ?? description.icePassword
        else { throw .missingICECredentials }
        guard let line = first.fingerprint ?? description.fingerprint else { throw .missingFingerprint }
        guard let fingerprint = DTLSFingerprint(sdpValue: line.sdpValue) else { throw .badFingerprint(line.sdpValue) }
        ice = ICECredentials(usernameFragment: ufrag, password: password)
        self.fingerprint = fingerprint
        setup = first.setup ?? description.setup ?? .actpass
        candidates = first.candidates
        iceLite = description.iceLite
    }

    /// The UDP candidates with numeric addresses, highest priority first; names (mDNS `.local`) are left out: such a
    /// peer is reached through the peer-reflexive address of its own checks.
    public func udpAddresses(where include: (STUNAddress) -> Bool = { _ in true }) -> [STUNAddress] {
        candidates.filter { $0.transport == "udp" && $0.component == 1 }
            .sorted { $0.priority > $1.priority }
            .compactMap { candidate in
                (try? SocketAddress(ipAddress: candidate.address, port: Int(candidate.port))).flatMap(STUNAddress.init)
            }
            .filter(include)
    }

    /// Writes this side's ICE credentials, fingerprint, setup role and candidates into a media section.
    public func apply(to media: inout MediaDescription) {
        media.iceUsernameFragment = ice.usernameFragment
        media.icePassword = ice.password
        media.fingerprint = DTLSFingerprintLine(algorithm: fingerprint.algorithm,
                                                value: String(fingerprint.sdpValue.split(separator: " ").last ?? ""))
        media.setup = setup
        media.candidates = candidates
        media.endOfCandidates = true
    }

    /// The DTLS role this side takes from the two setup attributes (RFC 8842 §5): `active` is the client and
    /// `passive` the server; a side that said `actpass` takes the role the other side left.
    public static func dtlsRole(local: SDPSetupRole, remote: SDPSetupRole) -> DTLSRole {
        switch (local, remote) {
        case (.active, _): .client
        case (.passive, _): .server
        case (_, .passive): .client
        case (_, .active): .server
        default: .client
        }
    }

    /// A host candidate for a bound UDP address.
    public static func hostCandidate(for address: STUNAddress, foundation: String = "1") -> ICECandidate {
        let ip = address.isIPv6 ? String(address.description.dropFirst().prefix { $0 != "]" })
                                : address.address.map(String.init).joined(separator: ".")
        // RFC 8445 §5.1.2.1: type preference 126 for host, local preference 65535, component 1.
        let priority = UInt32(126) << 24 | UInt32(65_535) << 8 | UInt32(256 - 1)
        return ICECandidate(foundation: foundation, component: 1, transport: "udp", priority: priority, address: ip,
                            port: address.port, type: "host")
    }
}
