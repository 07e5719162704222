import NIOCore

/// One WebRTC peer connection over one BUNDLE transport (ICE, DTLS-SRTP, RTP and RTCP muxed on one 5-tuple), sans-IO.
///
/// Feed it datagrams with ``receive(_:from:now:)`` and time with ``tick(now:)``; it returns the datagrams to send,
/// the events of the connection, and wants to be called again at ``nextDeadline``. Datagrams are told apart by their
/// first byte (RFC 7983): STUN goes to the ICE agent, DTLS to the DTLS endpoint, RTP and RTCP through SRTP.
///
/// The DTLS client starts its handshake once ICE has a path; the DTLS server answers whatever authenticated path the
/// handshake arrives on. Before nomination the ICE-lite side accepts DTLS and media from any address whose check it
/// answered (browsers start DTLS as soon as one check succeeds), and answers on that address.
///
/// Threading: not thread-safe. One owner (the session's or the meeting's event loop) calls it.
public final class PeerConnection {
    private enum Agent {
        case lite(ICELiteAgent)
        case controlling(ICEControllingAgent)
    }

    /// The configuration the connection was made with (its ICE parts follow restarts).
    public private(set) var configuration: PeerConnectionConfiguration
    /// Where the connection stands.
    public private(set) var state: PeerConnectionState = .checking
    /// The address media goes to, once ICE has chosen one.
    public private(set) var remoteAddress: STUNAddress?
    /// The SRTP profile DTLS negotiated.
    public private(set) var srtpProfile: SRTPProfile?
    /// Packet and drop counters.
    public private(set) var statistics = PeerConnectionStatistics()

    private var agent: Agent
    private let dtls: DTLSEndpoint
    private var dtlsStarted = false
    /// Where DTLS answers go before ICE has chosen a path (the source of the last accepted DTLS datagram).
    private var dtlsReturnAddress: STUNAddress?
    private var outbound: (any SRTPContext)?
    private var inbound: (any SRTPContext)?

    /// Creates a connection; nothing is sent before ``start(now:)``.
    public init(configuration: PeerConnectionConfiguration) throws(PeerConnectionFailure) {
        self.configuration = configuration
        self.agent = Self.makeAgent(configuration)
        do {
            dtls = try DTLSEndpoint(role: configuration.dtlsRole, certificate: configuration.certificate,
                                    remoteFingerprint: configuration.remoteFingerprint,
                                    profiles: configuration.srtpProfiles)
        } catch {
            throw .dtls(error)
        }
    }

    private static func makeAgent(_ configuration: PeerConnectionConfiguration) -> Agent {
        switch configuration.iceRole {
        case .lite:
            .lite(ICELiteAgent(localUsernameFragment: configuration.localICE.usernameFragment,
                               localPassword: configuration.localICE.password,
                               remoteUsernameFragment: configuration.remoteICE.usernameFragment))
        case .controlling(let candidates):
            .controlling(ICEControllingAgent(
                localUsernameFragment: configuration.localICE.usernameFragment,
                localPassword: configuration.localICE.password,
                remoteUsernameFragment: configuration.remoteICE.usernameFragment,
                remotePassword: configuration.remoteICE.password,
                remoteCandidates: candidates, tieBreaker: configuration.tieBreaker,
                seed: configuration.tieBreaker))
        }
    }

    /// The USERNAME of the peer's valid checks (`<local ufrag>:<remote ufrag>`); a shared media port demultiplexes
    /// new peers by it.
    public var expectedUsername: String {
        "\(configuration.localICE.usernameFragment):\(configuration.remoteICE.usernameFragment)"
    }

    /// Whether SRTP is keyed and media can be sent.
    public var isConnected: Bool { state == .connected }

    /// When ``tick(now:)`` must run next.
    public var nextDeadline: NIODeadline? {
        let ice: NIODeadline? = switch agent {
        case .lite(let lite): lite.nextDeadline
        case .controlling(let controlling): controlling.nextDeadline
        }
        return ice.earlier(dtls.nextDeadline)
    }

    /// Starts ICE: a controlling agent sends its first checks; a lite agent waits for the peer's.
    public func start(now: NIODeadline) -> PeerConnectionOutput {
        var output = PeerConnectionOutput()
        if case .controlling(var controlling) = agent {
            output.datagrams = controlling.start(now: now)
            agent = .controlling(controlling)
            if controlling.state == .failed { fail(.ice, into: &output) }
        }
        return output
    }

    /// Handles one datagram from `source`.
    ///
    /// The datagram is consumed: handed over as the last reference to its storage, SRTP decrypts it in place and the
    /// reported `RTPPacket`'s payload is a slice of it, so media costs no copy here. The returned output's event
    /// array is one heap allocation per media packet; ``receive(_:from:now:into:)`` avoids it. The datagram comes
    /// back in ``PeerConnectionOutput/receivedDatagram`` for its storage to be reused.
    public func receive(_ datagram: consuming [UInt8], from source: STUNAddress, now: NIODeadline) -> PeerConnectionOutput {
        var output = PeerConnectionOutput()
        receive(consume datagram, from: source, now: now, into: &output)
        return output
    }

    /// Handles one datagram from `source` like ``receive(_:from:now:)``, appending what it produces to `output`.
    ///
    /// A caller that keeps one output and empties it between datagrams with `removeAll(keepingCapacity: true)` on
    /// its arrays reuses their storage: an SRTP media datagram then costs no allocation here other than what parsing
    /// it into an `RTPPacket` or `RTCPPacket`s needs (RTP header extension values are arrays).
    public func receive(_ datagram: consuming [UInt8], from source: STUNAddress, now: NIODeadline,
                        into output: inout PeerConnectionOutput) {
        var bytes = consume datagram
        switch bytes.first {
        case .some(0...3):
            receiveSTUN(bytes, from: source, now: now, into: &output)
        case .some(20...63):
            receiveDTLS(bytes, from: source, now: now, into: &output)
        case .some(128...191):
            receiveMedia(&bytes, from: source, into: &output)
        default:
            statistics.datagramsDropped += 1
        }
        output.receivedDatagram = consume bytes
    }

    /// Runs timers: ICE checks, retransmissions and consent, DTLS retransmissions and timeouts.
    public func tick(now: NIODeadline) -> PeerConnectionOutput {
        var output = PeerConnectionOutput()
        switch agent {
        case .lite(var lite):
            let events = lite.tick(now: now)
            agent = .lite(lite)
            for event in events { handle(event, now: now, into: &output) }
        case .controlling(var controlling):
            let result = controlling.tick(now: now)
            agent = .controlling(controlling)
            output.datagrams += result.datagrams
            for event in result.events { handle(event, now: now, into: &output) }
        }
        if dtlsStarted || configuration.dtlsRole == .server {
            let result = dtls.tick(now: now)
            sendDTLS(result.datagrams, into: &output)
            handle(result.events, into: &output)
        }
        return output
    }

    /// Protects an RTP packet and returns the datagram to send, or nil before SRTP is keyed (the packet is dropped
    /// and counted, as a browser drops media before its transport is up).
    ///
    /// The packet is consumed and protected in place: handed over as the only reference to its storage with
    /// ``SRTPProfile/rtpTrailerLength`` bytes of spare capacity (16 bytes covers every profile), it becomes the
    /// datagram without a heap allocation; otherwise it is copied once into storage with room for the tag.
    public func sendRTP(_ packet: consuming [UInt8]) -> (datagram: [UInt8], to: STUNAddress)? {
        guard let outbound, let remoteAddress, state == .connected else {
            statistics.datagramsDropped += 1
            return nil
        }
        var bytes = consume packet
        let count = bytes.count
        bytes.reserveCapacity(count + outbound.profile.rtpTrailerLength)
        do {
            try outbound.protectRTP(&bytes)
        } catch {
            statistics.datagramsDropped += 1
            return nil
        }
        statistics.rtpPacketsSent += 1
        statistics.rtpBytesSent += count
        return (bytes, remoteAddress)
    }

    /// Protects an RTCP compound packet and returns the datagram to send, or nil before SRTP is keyed.
    ///
    /// Consumed and protected in place like ``sendRTP(_:)``; the room it needs is
    /// ``SRTPProfile/rtcpTrailerLength`` (20 bytes covers every profile).
    public func sendRTCP(_ compound: consuming [UInt8]) -> (datagram: [UInt8], to: STUNAddress)? {
        guard let outbound, let remoteAddress, state == .connected else {
            statistics.datagramsDropped += 1
            return nil
        }
        var bytes = consume compound
        bytes.reserveCapacity(bytes.count + outbound.profile.rtcpTrailerLength)
        do {
            try outbound.protectRTCP(&bytes)
        } catch {
            statistics.datagramsDropped += 1
            return nil
        }
        statistics.rtcpPacketsSent += 1
        return (bytes, remoteAddress)
    }

    /// Restarts ICE with new credentials on both sides (and, for a controlling agent, new remote candidates),
    /// keeping DTLS and SRTP: media resumes on the new path as soon as it is nominated.
    public func restartICE(localICE: ICECredentials, remoteICE: ICECredentials, remoteCandidates: [STUNAddress]?,
                           now: NIODeadline) -> PeerConnectionOutput {
        configuration.localICE = localICE
        configuration.remoteICE = remoteICE
        if let remoteCandidates, case .controlling = configuration.iceRole {
            configuration.iceRole = .controlling(remoteCandidates: remoteCandidates)
        }
        agent = Self.makeAgent(configuration)
        if case .failed(.ice) = state { state = dtlsStarted ? .securing : .checking }
        return start(now: now)
    }

    /// Sends DTLS close_notify and closes the connection.
    public func close() -> PeerConnectionOutput {
        var output = PeerConnectionOutput()
        if state != .closed {
            sendDTLS(dtls.close(), into: &output)
            state = .closed
        }
        return output
    }

    // MARK: - Receiving

    private func receiveSTUN(_ datagram: [UInt8], from source: STUNAddress, now: NIODeadline,
                             into output: inout PeerConnectionOutput) {
        switch agent {
        case .lite(var lite):
            let result = lite.receive(datagram, from: source, now: now)
            agent = .lite(lite)
            if let reply = result.reply { output.datagrams.append((reply, source)) }
            for event in result.events { handle(event, now: now, into: &output) }
        case .controlling(var controlling):
            let result = controlling.receive(datagram, from: source, now: now)
            agent = .controlling(controlling)
            output.datagrams += result.datagrams
            for event in result.events { handle(event, now: now, into: &output) }
        }
    }

    /// Whether `source` may send DTLS and media: the chosen path, or for the lite side any authenticated address.
    private func isTrusted(_ source: STUNAddress) -> Bool {
        if source == remoteAddress { return true }
        if case .lite(let lite) = agent { return lite.validatedAddresses.contains(source) }
        return false
    }

    private func receiveDTLS(_ datagram: [UInt8], from source: STUNAddress, now: NIODeadline,
                             into output: inout PeerConnectionOutput) {
        // A controlled full peer may start DTLS as soon as one of its checks succeeded, before this side nominated.
        let early: Bool = if case .controlling = agent { remoteAddress == nil } else { false }
        guard isTrusted(source) || early else {
            statistics.datagramsDropped += 1
            return
        }
        if remoteAddress == nil { dtlsReturnAddress = source }
        let result = dtls.receive(datagram, now: now)
        sendDTLS(result.datagrams, into: &output)
        handle(result.events, into: &output)
    }

    /// Decrypts `bytes` in place (the caller's only reference) and reports what it carries.
    private func receiveMedia(_ bytes: inout [UInt8], from source: STUNAddress, into output: inout PeerConnectionOutput) {
        guard let inbound, isTrusted(source) else {
            statistics.datagramsDropped += 1
            return
        }
        // RFC 5761 §4: RTCP packet types 192-223 occupy the second byte where RTP has marker and payload type.
        let isRTCP = bytes.count >= 2 && (192...223).contains(bytes[1])
        do {
            if isRTCP {
                try inbound.unprotectRTCP(&bytes)
                let packets = try RTCPPacket.parseCompound(bytes)
                statistics.rtcpPacketsReceived += 1
                output.events.append(.rtcp(packets))
            } else {
                try inbound.unprotectRTP(&bytes)
                let packet = try RTPPacket(parsing: bytes)
                statistics.rtpPacketsReceived += 1
                statistics.rtpBytesReceived += bytes.count
                output.events.append(.rtp(packet))
            }
        } catch {
            statistics.datagramsDropped += 1
        }
    }

    // MARK: - Events

    private func handle(_ event: ICEControllingAgent.Event, now: NIODeadline, into output: inout PeerConnectionOutput) {
        switch event {
        case .connected(let address): pathSelected(address, now: now, into: &output)
        case .failed: fail(.ice, into: &output)
        }
    }

    private func handle(_ event: ICELiteEvent, now: NIODeadline, into output: inout PeerConnectionOutput) {
        switch event {
        case .selected(let address): pathSelected(address, now: now, into: &output)
        case .migrated(_, let address): pathSelected(address, now: now, into: &output)
        case .consentExpired: fail(.ice, into: &output)
        }
    }

    private func pathSelected(_ address: STUNAddress, now: NIODeadline, into output: inout PeerConnectionOutput) {
        let previous = remoteAddress
        remoteAddress = address
        if previous == nil {
            output.events.append(.iceConnected(address))
        } else if previous != address {
            output.events.append(.pathChanged(address))
        }
        if state == .checking { state = .securing }
        if configuration.dtlsRole == .client && !dtlsStarted {
            dtlsStarted = true
            sendDTLS(dtls.start(now: now), into: &output)
        }
    }

    private func handle(_ events: [DTLSEvent], into output: inout PeerConnectionOutput) {
        for event in events {
            switch event {
            case .connected(let keys):
                do {
                    outbound = try OpenSSLSRTPContext(profile: keys.profile, masterKey: keys.localMasterKey,
                                                      masterSalt: keys.localMasterSalt)
                    inbound = try OpenSSLSRTPContext(profile: keys.profile, masterKey: keys.remoteMasterKey,
                                                     masterSalt: keys.remoteMasterSalt)
                } catch {
                    fail(.srtp(error), into: &output)
                    continue
                }
                srtpProfile = keys.profile
                if case .failed = state { continue }
                state = .connected
                output.events.append(.connected(keys.profile))
            case .failed(let error):
                fail(.dtls(error), into: &output)
            case .closed:
                if state != .closed {
                    state = .closed
                    output.events.append(.closed)
                }
            }
        }
    }

    private func fail(_ failure: PeerConnectionFailure, into output: inout PeerConnectionOutput) {
        if case .failed = state { return }
        if state == .closed { return }
        state = .failed(failure)
        output.events.append(.failed(failure))
    }

    private func sendDTLS(_ datagrams: [[UInt8]], into output: inout PeerConnectionOutput) {
        guard let target = remoteAddress ?? dtlsReturnAddress else { return }
        for datagram in datagrams { output.datagrams.append((datagram, target)) }
    }
}
