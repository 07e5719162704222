import CCarillonOpenSSL
import NIOCore

/// What OpenSSL's callbacks of one ``DTLSEndpoint`` read and write: the datagram queues, the virtual retransmission
/// timer and what the handshake learned about the peer.
///
/// OpenSSL reaches it through `BIO_get_data` and the SSL's app data as an unretained pointer; the endpoint owns it and
/// frees the SSL (and so the BIO) before it.
final class DTLSDatagramBridge {
    /// The datagram OpenSSL reads next (the read side is fed one datagram at a time).
    var inbound: [UInt8]?
    /// Datagrams OpenSSL wrote, one per write, in order.
    var outbound: [[UInt8]] = []
    /// The owner's clock at the current call into OpenSSL.
    var now: NIODeadline
    /// The current retransmission interval on the owner's clock; doubles per retransmission.
    var retransmitInterval: TimeAmount
    /// When the running flight is retransmitted; nil while OpenSSL runs no timer.
    var retransmitDeadline: NIODeadline?
    /// OpenSSL's own deadline (a `struct timeval`), as last announced to the read BIO.
    var openSSLDeadline: UnsafeMutableRawPointer?
    /// The fingerprint the peer announced.
    let remoteFingerprint: DTLSFingerprint
    /// Set when the verify callback saw a certificate whose fingerprint differs.
    var fingerprintMismatch = false
    /// The description of the last fatal alert received.
    var receivedFatalAlert: String?
    /// First retransmission interval.
    let initialRetransmitInterval: TimeAmount
    /// Largest retransmission interval.
    let maximumRetransmitInterval: TimeAmount

    init(remoteFingerprint: DTLSFingerprint, now: NIODeadline, initialRetransmitInterval: TimeAmount,
         maximumRetransmitInterval: TimeAmount) {
        self.remoteFingerprint = remoteFingerprint
        self.now = now
        self.initialRetransmitInterval = initialRetransmitInterval
        self.maximumRetransmitInterval = maximumRetransmitInterval
        retransmitInterval = initialRetransmitInterval
    }

    /// Takes what OpenSSL wrote since the last call.
    func takeOutbound() -> [[UInt8]] {
        defer { outbound.removeAll(keepingCapacity: true) }
        return outbound
    }

    // MARK: - OpenSSL's clock

    /// Whether this OpenSSL lets the core expire its retransmission deadline on demand: in 3.0 and 3.1 the read BIO
    /// is handed a pointer to the SSL's own deadline. Later versions hand a copy; there the timer falls back to real
    /// durations, so retransmissions follow the real clock.
    static let canExpireOpenSSLDeadline: Bool = OpenSSL_version_num() < 0x3020_0000

    /// The duration OpenSSL's real-clock timer is given while the core's virtual timer is in charge: long enough that
    /// OpenSSL never retransmits on its own (and that its read path, which retransmits whenever its own timer expired,
    /// stays quiet).
    static let dormantTimerMicroseconds: UInt32 = 3_600_000_000

    /// OpenSSL asks for the next timeout: 0 when a flight's timer starts, the previous value on each retransmission.
    func nextTimerMicroseconds(previous: UInt32) -> UInt32 {
        if previous == 0 {
            retransmitInterval = initialRetransmitInterval
        } else {
            retransmitInterval = min(retransmitInterval * 2, maximumRetransmitInterval)
        }
        if Self.canExpireOpenSSLDeadline { return Self.dormantTimerMicroseconds }
        return UInt32(clamping: retransmitInterval.nanoseconds / 1000)
    }

    /// OpenSSL started (a set `timeval`) or stopped (zero) its timer.
    func openSSLTimerChanged(_ deadline: UnsafeMutableRawPointer?) {
        guard let deadline else { return }
        if carillon_timeval_is_set(deadline) != 0 {
            openSSLDeadline = Self.canExpireOpenSSLDeadline ? deadline : nil
            retransmitDeadline = now + retransmitInterval
        } else {
            openSSLDeadline = nil
            retransmitDeadline = nil
        }
    }

    /// Makes OpenSSL's real-clock deadline lie in the past, so that `DTLSv1_handle_timeout` retransmits now.
    func expireOpenSSLDeadline() {
        if let openSSLDeadline { carillon_timeval_expire(openSSLDeadline) }
    }

    // MARK: - Callbacks

    /// The bridge of a BIO made with ``bioMethod``.
    static func from(bio: OpaquePointer?) -> DTLSDatagramBridge? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<DTLSDatagramBridge>.fromOpaque(data).takeUnretainedValue()
    }

    /// The bridge stored as an SSL's app data.
    static func from(ssl: OpaquePointer?) -> DTLSDatagramBridge? {
        guard let ssl, let data = carillon_ssl_get_app_data(ssl) else { return nil }
        return Unmanaged<DTLSDatagramBridge>.fromOpaque(data).takeUnretainedValue()
    }

    /// The BIO method shared by every endpoint: each write is one datagram, each read returns one whole datagram.
    nonisolated(unsafe) static let bioMethod: OpaquePointer? = makeBIOMethod()

    private static func makeBIOMethod() -> OpaquePointer? {
        guard let method = BIO_meth_new(BIO_get_new_index() | carillon_bio_type_source_sink(), "carillon-dtls")
        else { return nil }
        BIO_meth_set_create(method) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        BIO_meth_set_destroy(method) { bio in
            BIO_set_data(bio, nil)
            BIO_set_init(bio, 0)
            return 1
        }
        BIO_meth_set_write(method) { bio, data, length in
            carillon_bio_clear_retry_flags(bio)
            guard let bridge = DTLSDatagramBridge.from(bio: bio), let data, length >= 0 else { return -1 }
            bridge.outbound.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
            return length
        }
        BIO_meth_set_read(method) { bio, buffer, capacity in
            carillon_bio_clear_retry_flags(bio)
            guard let bridge = DTLSDatagramBridge.from(bio: bio), let buffer, capacity > 0 else { return -1 }
            guard let datagram = bridge.inbound else {
                carillon_bio_set_retry_read(bio)
                return -1
            }
            bridge.inbound = nil
            // Datagram semantics: what does not fit is lost.
            let count = min(datagram.count, Int(capacity))
            datagram.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
            }
            return Int32(count)
        }
        BIO_meth_set_ctrl(method) { bio, command, _, pointer in
            switch command {
            case BIO_CTRL_FLUSH:
                return 1
            case BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT:
                DTLSDatagramBridge.from(bio: bio)?.openSSLTimerChanged(pointer)
                return 1
            case BIO_CTRL_PENDING:
                guard let bridge = DTLSDatagramBridge.from(bio: bio) else { return 0 }
                return bridge.inbound?.count ?? 0
            default:
                // No MTU queries (SSL_OP_NO_QUERY_MTU), no overhead, no peer address: 0 for everything else.
                return 0
            }
        }
        return method
    }

    /// The verify callback: accepts any chain (peers use self-signed certificates) unless the end-entity
    /// certificate does not match the announced fingerprint.
    static func verify(preverified: Int32, store: OpaquePointer?) -> Int32 {
        guard let store, let sslPointer = carillon_x509_store_ctx_get_ssl(store),
              let bridge = DTLSDatagramBridge.from(ssl: OpaquePointer(sslPointer)),
              let certificate = X509_STORE_CTX_get0_cert(store)
        else { return 0 }
        let expected = bridge.remoteFingerprint
        guard let actual = try? DTLSFingerprint.of(certificate: certificate, algorithm: expected.algorithm),
              actual == expected
        else {
            bridge.fingerprintMismatch = true
            X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED)
            return 0
        }
        return 1
    }

    /// The info callback: records fatal alerts received.
    func noteInfo(location: Int32, value: Int32) {
        guard location & SSL_CB_ALERT != 0, location & SSL_CB_READ != 0, value >> 8 == SSL3_AL_FATAL else { return }
        receivedFatalAlert = SSL_alert_desc_string_long(value).map { String(cString: $0) } ?? "alert \(value & 0xFF)"
    }
}
