import NIOCore

/// The server's ICE-lite agent for one peer connection (RFC 8445 §2.5, consent per RFC 7675), sans-IO.
///
/// It answers the peer's Binding requests that carry `<localUfrag>:<remoteUfrag>`, a MESSAGE-INTEGRITY made with the
/// local password and a FINGERPRINT; it nominates the address of a request with USE-CANDIDATE and follows the peer
/// to a new address when a nominating check arrives from there. A path without a valid check for
/// `consentTimeout` (30 s in RFC 7675) is reported expired.
public struct ICELiteAgent: Sendable {
    /// Local ICE credentials, announced in the answer's `a=ice-ufrag` / `a=ice-pwd`.
    public let localUsernameFragment: String
    /// Local ICE password.
    public let localPassword: String
    /// The peer's username fragment, from its offer.
    public let remoteUsernameFragment: String
    /// How long the selected path lives without a valid check.
    public var consentTimeout: TimeAmount

    /// Where media goes, once nominated.
    public private(set) var selectedAddress: STUNAddress?
    /// Addresses from which an authenticated check arrived (at most 16, oldest forgotten first): the only sources
    /// whose non-STUN datagrams a peer connection accepts before nomination.
    public private(set) var validatedAddresses: [STUNAddress] = []
    private var lastValidCheck: NIODeadline?
    private var expired = false

    /// Creates the agent of one peer connection.
    public init(localUsernameFragment: String, localPassword: String, remoteUsernameFragment: String,
                consentTimeout: TimeAmount = .seconds(30)) {
        self.localUsernameFragment = localUsernameFragment
        self.localPassword = localPassword
        self.remoteUsernameFragment = remoteUsernameFragment
        self.consentTimeout = consentTimeout
    }

    /// The USERNAME a valid request to this agent carries; the server demultiplexes new peers by it.
    public var expectedUsername: String { "\(localUsernameFragment):\(remoteUsernameFragment)" }

    /// When ``tick(now:)`` must run to notice expired consent.
    public var nextDeadline: NIODeadline? {
        guard !expired, selectedAddress != nil, let lastValidCheck else { return nil }
        return lastValidCheck + consentTimeout
    }

    /// Handles a STUN datagram from `source`: returns the datagram to send back (if any) and what changed.
    public mutating func receive(
        _ datagram: [UInt8],
        from source: STUNAddress,
        now: NIODeadline
    ) -> (reply: [UInt8]?, events: [ICELiteEvent]) {
        guard let request = try? STUNMessage(parsing: datagram), request.messageClass == .request,
              request.method == STUNMessage.bindingMethod
        else { return (nil, []) }
        // Checks that fail authentication are dropped silently (RFC 8489 §9.1.3 for short-term credentials
        // allows an error, but answering unauthenticated peers only helps scanners).
        guard request.username == expectedUsername,
              STUNMessage.verifyIntegrity(datagram, key: Array(localPassword.utf8)),
              STUNMessage.verifyFingerprint(datagram)
        else { return (nil, []) }
        if request.attributes.contains(where: { if case .iceControlled = $0 { true } else { false } }) {
            // A lite agent is always controlled: the peer must take the controlling role.
            let conflict = STUNMessage(messageClass: .errorResponse, transactionID: request.transactionID,
                                       attributes: [.errorCode(code: 487, reason: "Role Conflict")])
            return (conflict.encoded(integrityKey: Array(localPassword.utf8), fingerprint: true), [])
        }
        var events: [ICELiteEvent] = []
        if request.attributes.contains(.useCandidate) {
            if let current = selectedAddress, current != source {
                events.append(.migrated(from: current, to: source))
                selectedAddress = source
            } else if selectedAddress == nil {
                events.append(.selected(source))
                selectedAddress = source
            }
            expired = false
        }
        if source == selectedAddress { lastValidCheck = now }
        if !validatedAddresses.contains(source) {
            if validatedAddresses.count == 16 { validatedAddresses.removeFirst() }
            validatedAddresses.append(source)
        }
        let response = STUNMessage(messageClass: .successResponse, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(source)])
        return (response.encoded(integrityKey: Array(localPassword.utf8), fingerprint: true), events)
    }

    /// Notices expired consent.
    public mutating func tick(now: NIODeadline) -> [ICELiteEvent] {
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        expired = true
        selectedAddress = nil
        return [.consentExpired]
    }
}
