import CCarillonOpenSSL
import NIOCore

/// One DTLS 1.2 association for DTLS-SRTP (RFC 5763/5764), sans-IO, on OpenSSL.
///
/// Feed it the datagrams that arrive (``receive(_:now:)``), send what it returns, and call ``tick(now:)`` at
/// ``nextDeadline``. The core never reads the clock: retransmissions (100 ms first, doubling, at most 3 s) and the
/// handshake timeout follow the `now` values passed in, even when those are far from real time.
///
/// The peer's certificate is accepted only if it matches `remoteFingerprint`; on success ``DTLSEvent/connected(_:)``
/// carries the SRTP keys exported with "EXTRACTOR-dtls_srtp". After that the endpoint only answers retransmissions
/// and reports close_notify or a fatal alert; application data is ignored.
///
/// Threading: not thread-safe; one owner (an event loop) uses it.
public final class DTLSEndpoint {
    /// This side of the handshake.
    public let role: DTLSRole
    /// The fingerprint the peer announced.
    public let remoteFingerprint: DTLSFingerprint
    /// SRTP profiles offered, in order of preference (the server's order decides).
    public let profiles: [SRTPProfile]
    /// Where the association is.
    public private(set) var state: DTLSState = .new
    /// The keys of the completed handshake.
    public private(set) var keyingMaterial: DTLSKeyingMaterial?
    /// How long a handshake may take: counted from ``start(now:)`` for a client, from the first datagram received
    /// for a server. Independently, OpenSSL gives up on a flight after 12 retransmissions (about 27 s with this
    /// schedule); both end in ``DTLSEvent/failed(_:)`` with ``DTLSError/timeout``.
    public var handshakeTimeout: TimeAmount = .seconds(30)

    /// The first retransmission interval.
    public static let initialRetransmitInterval: TimeAmount = .milliseconds(100)
    /// The largest retransmission interval.
    public static let maximumRetransmitInterval: TimeAmount = .seconds(3)

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let bridge: DTLSDatagramBridge
    private var handshakeDeadline: NIODeadline?
    private var pendingEvents: [DTLSEvent] = []
    private var screen = DTLSRecordScreen()

    /// The exporter label of RFC 5764 §4.2.
    static let exporterLabel = "EXTRACTOR-dtls_srtp"
    /// ECDHE key exchange only, AEAD first.
    static let cipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
        "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
    ].joined(separator: ":")

    /// Creates an association; a client sends its ClientHello from ``start(now:)``.
    ///
    /// - Parameters:
    ///   - role: client or server, from SDP `a=setup`.
    ///   - certificate: this side's certificate (its fingerprint goes into the local SDP).
    ///   - remoteFingerprint: the peer's `a=fingerprint`.
    ///   - profiles: SRTP profiles to offer, most preferred first; must not be empty.
    ///   - mtu: the largest DTLS datagram to send.
    public init(role: DTLSRole, certificate: DTLSCertificate, remoteFingerprint: DTLSFingerprint,
                profiles: [SRTPProfile] = SRTPProfile.allCases, mtu: Int = 1200) throws(DTLSError) {
        guard DTLSFingerprint.supportedAlgorithms[remoteFingerprint.algorithm] != nil else {
            throw .unsupportedFingerprintAlgorithm(remoteFingerprint.algorithm)
        }
        guard !profiles.isEmpty else { throw .noSRTPProfile }
        guard let method = DTLSDatagramBridge.bioMethod else { throw .openSSL(draining: "BIO_meth_new") }
        self.role = role
        self.remoteFingerprint = remoteFingerprint
        self.profiles = profiles
        ERR_clear_error()
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .openSSL(draining: "SSL_CTX_new") }
        do {
            try Self.configure(context: context, certificate: certificate, profiles: profiles)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw .openSSL(draining: "SSL_new")
        }
        guard let bio = BIO_new(method) else {
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw .openSSL(draining: "BIO_new")
        }
        self.context = context
        self.ssl = ssl
        // Any `now` will do until the first call: the timer only starts inside calls that set it.
        bridge = DTLSDatagramBridge(remoteFingerprint: remoteFingerprint, now: .uptimeNanoseconds(0),
                                    initialRetransmitInterval: Self.initialRetransmitInterval,
                                    maximumRetransmitInterval: Self.maximumRetransmitInterval)
        let opaqueBridge = Unmanaged.passUnretained(bridge).toOpaque()
        BIO_set_data(bio, opaqueBridge)
        SSL_set_bio(ssl, bio, bio)  // the SSL owns the BIO from here
        _ = carillon_ssl_set_app_data(ssl, opaqueBridge)
        SSL_set_options(ssl, carillon_ssl_op_no_query_mtu())
        DTLS_set_timer_cb(ssl) { ssl, previous in
            guard let bridge = DTLSDatagramBridge.from(ssl: ssl) else {
                return DTLSDatagramBridge.dormantTimerMicroseconds
            }
            return bridge.nextTimerMicroseconds(previous: previous)
        }
        SSL_set_info_callback(ssl) { ssl, location, value in
            DTLSDatagramBridge.from(ssl: ssl)?.noteInfo(location: location, value: value)
        }
        guard carillon_dtls_set_link_mtu(ssl, mtu) == 1 else {
            throw .openSSL(draining: "DTLS_set_link_mtu(\(mtu))")  // deinit frees ssl and context
        }
        switch role {
        case .client: SSL_set_connect_state(ssl)
        case .server: SSL_set_accept_state(ssl)
        }
    }

    deinit {
        SSL_free(ssl)  // frees the BIO
        SSL_CTX_free(context)
    }

    private static func configure(context: OpaquePointer, certificate: DTLSCertificate,
                                  profiles: [SRTPProfile]) throws(DTLSError) {
        guard carillon_ssl_ctx_set_min_proto_version(context, DTLS1_2_VERSION) == 1 else {
            throw .openSSL(draining: "SSL_CTX_set_min_proto_version(DTLS 1.2)")
        }
        SSL_CTX_set_options(context, carillon_ssl_op_no_ticket() | carillon_ssl_op_no_renegotiation()
                            | carillon_ssl_op_no_compression() | carillon_ssl_op_cipher_server_preference()
                            | carillon_ssl_op_no_query_mtu())
        guard SSL_CTX_set_cipher_list(context, cipherList) == 1 else {
            throw .openSSL(draining: "SSL_CTX_set_cipher_list")
        }
        guard carillon_ssl_ctx_set1_groups_list(context, "X25519:P-256:P-384") == 1 else {
            throw .openSSL(draining: "SSL_CTX_set1_groups_list")
        }
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1,
              SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1,
              SSL_CTX_check_private_key(context) == 1
        else { throw .openSSL(draining: "loading the certificate") }
        // Ask for the peer's certificate and insist on one; the callback accepts self-signed certificates and
        // checks the fingerprint.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { preverified, store in
            DTLSDatagramBridge.verify(preverified: preverified, store: store)
        }
        // SSL_CTX_set_tlsext_use_srtp returns 0 on success.
        guard SSL_CTX_set_tlsext_use_srtp(context, profiles.map(\.openSSLName).joined(separator: ":")) == 0 else {
            throw .openSSL(draining: "SSL_CTX_set_tlsext_use_srtp")
        }
    }

    // MARK: - Driving

    /// Starts the handshake: a client returns its ClientHello flight; a server returns nothing and waits.
    public func start(now: NIODeadline) -> [[UInt8]] {
        guard state == .new else { return [] }
        state = .handshaking
        guard role == .client else { return [] }
        handshakeDeadline = now + handshakeTimeout
        bridge.now = now
        pendingEvents += driveHandshake()
        return bridge.takeOutbound()
    }

    /// Handles one received DTLS datagram: returns the datagrams to send and what happened.
    ///
    /// Datagrams outside the DTLS range of RFC 7983 (first byte 20...63), and everything after the association
    /// closed or failed, are ignored; records OpenSSL cannot authenticate are dropped by it.
    public func receive(_ datagram: [UInt8], now: NIODeadline) -> (datagrams: [[UInt8]], events: [DTLSEvent]) {
        var events = takePendingEvents()
        if state == .new, role == .server { state = .handshaking }
        guard state == .handshaking || state == .connected, let first = datagram.first, (20...63).contains(first),
              let screened = screen.screen(datagram)
        else { return ([], events) }
        bridge.now = now
        bridge.inbound = screened
        switch state {
        case .handshaking:
            if handshakeDeadline == nil { handshakeDeadline = now + handshakeTimeout }
            events += driveHandshake()
        case .connected:
            events += readAfterHandshake()
        default:
            break
        }
        bridge.inbound = nil
        return (bridge.takeOutbound(), events)
    }

    /// Retransmits the current flight when its timer expired and fails a handshake that took too long.
    public func tick(now: NIODeadline) -> (datagrams: [[UInt8]], events: [DTLSEvent]) {
        var events = takePendingEvents()
        guard state == .handshaking else { return ([], events) }
        bridge.now = now
        if let handshakeDeadline, now >= handshakeDeadline {
            events += fail(.timeout)
            return (bridge.takeOutbound(), events)
        }
        if let deadline = bridge.retransmitDeadline, now >= deadline {
            bridge.expireOpenSSLDeadline()
            ERR_clear_error()
            let result = carillon_dtlsv1_handle_timeout(ssl)
            if result < 0 {
                // OpenSSL gives up after too many retransmissions of one flight.
                _ = DTLSError.drainOpenSSLErrors()
                events += fail(.timeout)
            } else if result == 0 {
                // OpenSSL's own clock says not yet (only where its deadline cannot be expired): look again soon.
                bridge.retransmitDeadline = DTLSDatagramBridge.canExpireOpenSSLDeadline ? nil : now + .milliseconds(10)
            }
        }
        return (bridge.takeOutbound(), events)
    }

    /// When ``tick(now:)`` must run next; nil when nothing is pending.
    public var nextDeadline: NIODeadline? {
        if !pendingEvents.isEmpty { return .uptimeNanoseconds(0) }
        guard state == .handshaking else { return nil }
        switch (bridge.retransmitDeadline, handshakeDeadline) {
        case let (retransmit?, handshake?): return min(retransmit, handshake)
        case let (retransmit?, nil): return retransmit
        case let (nil, handshake?): return handshake
        case (nil, nil): return nil
        }
    }

    /// Ends the association: returns the close_notify alert to send (none while the handshake is still running, as
    /// OpenSSL cannot send one then); the state becomes ``DTLSState/closed``.
    public func close() -> [[UInt8]] {
        switch state {
        case .closed, .failed:
            return []
        case .new, .handshaking:
            state = .closed
            return []
        case .connected:
            state = .closed
            sendCloseNotify()
            return bridge.takeOutbound()
        }
    }

    // MARK: - Internals

    private func takePendingEvents() -> [DTLSEvent] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }

    private func driveHandshake() -> [DTLSEvent] {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return finishHandshake() }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return []
        default:
            if bridge.fingerprintMismatch {
                _ = DTLSError.drainOpenSSLErrors()
                return fail(.fingerprintMismatch)
            }
            if let alert = bridge.receivedFatalAlert {
                _ = DTLSError.drainOpenSSLErrors()
                return fail(.alert(alert))
            }
            return fail(.openSSL(draining: "handshake"))
        }
    }

    private func finishHandshake() -> [DTLSEvent] {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return failAfterHandshake(.noPeerCertificate) }
        defer { X509_free(peer) }
        guard let actual = try? DTLSFingerprint.of(certificate: peer, algorithm: remoteFingerprint.algorithm),
              actual == remoteFingerprint
        else { return failAfterHandshake(.fingerprintMismatch) }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
              let profile = SRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id)),
              profiles.contains(profile)
        else { return failAfterHandshake(.noSRTPProfile) }
        var exported = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let label = Array(Self.exporterLabel.utf8).map { CChar(bitPattern: $0) }
        let status = exported.withUnsafeMutableBufferPointer { output in
            SSL_export_keying_material(ssl, output.baseAddress, output.count, label, label.count, nil, 0, 0)
        }
        guard status == 1, let material = DTLSKeyingMaterial(profile: profile, exported: exported, role: role) else {
            return failAfterHandshake(.openSSL(draining: "SSL_export_keying_material"))
        }
        keyingMaterial = material
        screen.minimumProtectedLength = Self.minimumProtectedRecordLength(cipherNID: SSL_get_current_cipher(ssl).map(SSL_CIPHER_get_cipher_nid))
        state = .connected
        bridge.retransmitDeadline = nil
        return [.connected(material)]
    }

    /// The smallest protected record the negotiated cipher can produce (see ``DTLSRecordScreen``).
    static func minimumProtectedRecordLength(cipherNID: Int32?) -> Int {
        switch cipherNID {
        case NID_aes_128_gcm, NID_aes_256_gcm: 8 + 16
        case NID_chacha20_poly1305: 16
        case nil: DTLSRecordScreen.smallestExpansion
        default: 16 + 16 + 16  // CBC: IV, one block, and the 20-byte MAC makes it at least three blocks' worth
        }
    }

    /// After the handshake the peer may still send its retransmissions, alerts, close_notify or (ignored) data.
    private func readAfterHandshake() -> [DTLSEvent] {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while true {
            ERR_clear_error()
            let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 { continue }  // application data: no data channel here
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return []
            case SSL_ERROR_ZERO_RETURN:
                state = .closed
                return [.closed]
            default:
                _ = DTLSError.drainOpenSSLErrors()
                if let alert = bridge.receivedFatalAlert {
                    return fail(.alert(alert))
                }
                // Something OpenSSL rejected without the peer's word: the keys are out already, so the association
                // stays up; anything OpenSSL wanted to answer is not sent.
                bridge.outbound.removeAll()
                return []
            }
        }
    }

    private func failAfterHandshake(_ error: DTLSError) -> [DTLSEvent] {
        let events = fail(error)
        sendCloseNotify()
        return events
    }

    private func fail(_ error: DTLSError) -> [DTLSEvent] {
        state = .failed
        bridge.retransmitDeadline = nil
        handshakeDeadline = nil
        return [.failed(error)]
    }

    private func sendCloseNotify() {
        guard SSL_is_init_finished(ssl) == 1 else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        _ = DTLSError.drainOpenSSLErrors()
    }
}
