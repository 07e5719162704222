import CarillonRTC
import Logging
import NIOCore

/// The media side of one meeting: one ICE-lite peer connection per attendee session, all on the shared media port
/// and all owned by the meeting's event loop.
///
/// Threading: confined to the meeting's event loop (the room calls it there; the drivers run there).
final class MeetingMedia {
    /// One attendee session's media.
    struct Session {
        let attendeeId: String
        let driver: PeerConnectionDriver
        /// The SSRC this server sends the session's audio with.
        let ssrc: UInt32
        /// The Opus payload type the session's offer chose.
        let opusPayloadType: UInt8
        /// The negotiated id of the `ssrc-audio-level` extension, if the offer had it.
        let audioLevelExtensionId: UInt8?
        var connected = false
        /// Reception statistics of the session's audio, for the receiver reports this server sends it.
        var uplink: RTPReceiveStatistics?
        var uplinkSSRC: UInt32?
    }

    /// How often each session gets a receiver report about its audio: the client's send-loss metric is one second.
    static let receiverReportInterval = TimeAmount.seconds(1)

    private let eventLoop: any EventLoop
    private let context: MediaContext
    private let logger: Logger
    private(set) var sessions: [SignalingConnectionID: Session] = [:]
    /// Called on the event loop when a session's media connects or fails.
    var onStateChange: ((SignalingConnectionID, PeerConnectionEvent) -> Void)?
    /// Called on the event loop with every attendee's volume and signal strength when any changed (AUDIO_METADATA).
    var onAudioMetadata: (([(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]) -> Void)?
    private var activity = AudioActivityMeter()
    private var activityTimer: RepeatedTask?
    private var reportTimer: RepeatedTask?
    /// The meeting's mix, made when the first session connects.
    private var mixer: AudioMixer?
    private var mixTimer: Scheduled<Void>?
    /// The roster's stream id and mute state of an attendee (the signaling core owns both).
    var rosterState: ((String) -> (streamId: UInt32, muted: Bool)?)?

    init(eventLoop: any EventLoop, context: MediaContext, logger: Logger) {
        self.eventLoop = eventLoop
        self.context = context
        self.logger = logger
    }

    /// Answers a session's offer: the first Opus audio m-line is accepted, everything else rejected. A later offer
    /// on the same socket replaces the earlier connection.
    func answer(offer text: String, attendeeId: String, connection: SignalingConnectionID) throws -> String {
        eventLoop.preconditionInEventLoop()
        let offer = try SessionDescription(parsing: text)
        let remote = try TransportDescription(remote: offer)
        let local = TransportDescription(
            ice: .random(), fingerprint: context.certificate.fingerprint,
            // The client offers actpass; the server is the DTLS server unless the client insists on that role.
            setup: remote.setup == .passive ? .active : .passive,
            candidates: [TransportDescription.hostCandidate(for: context.candidateAddress)], iceLite: true)
        let ssrc = UInt32.random(in: 1...UInt32.max)
        let answer = try AudioSessionDescription.answer(to: offer, transport: local, ssrc: ssrc, cname: "carillon")
        let connectionCore = try PeerConnection(configuration: PeerConnectionConfiguration(
            iceRole: .lite, localICE: local.ice, remoteICE: remote.ice,
            dtlsRole: TransportDescription.dtlsRole(local: local.setup, remote: remote.setup),
            certificate: context.certificate, remoteFingerprint: remote.fingerprint))
        end(connection)
        let driver = context.port.makeDriver(for: connectionCore, on: eventLoop)
        let audio = answer.media.first { $0.kind == "audio" && $0.port != 0 }
        sessions[connection] = Session(attendeeId: attendeeId, driver: driver, ssrc: ssrc,
                                       opusPayloadType: try AudioSessionDescription.opusPayloadType(in: answer),
                                       audioLevelExtensionId: audio?.extensionId(for: SDPExtension.audioLevelURI))
        context.port.register(driver, usernameFragment: local.ice.usernameFragment)
        driver.start { [weak self] event in self?.handle(event, from: connection, driver: driver) }
        return answer.serialized
    }

    /// Sends an RTP packet to a session (dropped while it is not connected).
    func send(_ packet: [UInt8], to connection: SignalingConnectionID) {
        sessions[connection]?.driver.sendRTP(packet)
    }

    /// Ends a session's media (it left, its socket ended, or it re-offered).
    func end(_ connection: SignalingConnectionID) {
        guard let session = sessions.removeValue(forKey: connection) else { return }
        context.port.unregister(session.driver)
        session.driver.stop()
        if !sessions.values.contains(where: { $0.attendeeId == session.attendeeId && $0.connected }) {
            activity.remove(session.attendeeId)
        }
        mixer?.removeParticipant(AudioMixer.ParticipantID(connection.rawValue))
        if sessions.isEmpty { stopTimers() }
    }

    /// Ends every session (the meeting ended or the server is stopping).
    func endAll() {
        for connection in Array(sessions.keys) { end(connection) }
        stopTimers()
    }

    private func stopTimers() {
        activityTimer?.cancel()
        activityTimer = nil
        reportTimer?.cancel()
        reportTimer = nil
        mixTimer?.cancel()
        mixTimer = nil
    }

    /// Leaves a muted attendee out of the mix, or takes it back.
    func setMuted(_ muted: Bool, attendeeId: String) {
        for (connection, session) in sessions where session.attendeeId == attendeeId {
            mixer?.setMuted(muted, for: AudioMixer.ParticipantID(connection.rawValue))
        }
    }

    /// Adds a connected session to the mix and keeps the 20 ms mixing clock running.
    private func startMixing(_ session: Session, connection: SignalingConnectionID) {
        if mixer == nil {
            do {
                mixer = try AudioMixer()
            } catch {
                logger.error("the audio mixer cannot start: \(error)")
                return
            }
        }
        guard let mixer else { return }
        let roster = rosterState?(session.attendeeId)
        let id = AudioMixer.ParticipantID(connection.rawValue)
        mixer.addParticipant(id, attendeeId: session.attendeeId, streamId: roster?.streamId ?? 0,
                             outboundSSRC: session.ssrc, payloadType: session.opusPayloadType)
        mixer.setMuted(roster?.muted ?? false, for: id)
        scheduleMix()
    }

    /// One-shot timers at the mixer's own deadlines: its 20 ms grid does not drift with the loop's delays.
    private func scheduleMix() {
        guard mixTimer == nil, let deadline = mixer?.nextDeadline else { return }
        let owner = NIOLoopBound(self, eventLoop: eventLoop)
        mixTimer = eventLoop.scheduleTask(deadline: deadline) {
            let media = owner.value
            media.mixTimer = nil
            guard let mixer = media.mixer else { return }
            for (participant, packet) in mixer.tick(now: .now()) {
                media.sessions[SignalingConnectionID(participant.rawValue)]?.driver.sendRTP(packet)
            }
            media.scheduleMix()
        }
    }

    /// Reports volumes and signal strengths every 200 ms while any session is connected.
    private func startReportingActivity() {
        guard activityTimer == nil else { return }
        let interval = TimeAmount.milliseconds(Int64(AudioActivityMeter.interval))
        // The task runs on this loop, which owns `self`.
        let owner = NIOLoopBound(self, eventLoop: eventLoop)
        activityTimer = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let media = owner.value
            guard let states = media.activity.report() else { return }
            media.onAudioMetadata?(states)
        }
    }

    /// Sends every session a receiver report about its audio each second (RR with one block, and the SDES CNAME a
    /// compound packet needs): the client's `audioSendPacketLossPercent`, and its round trip through LSR/DLSR.
    private func startReceiverReports() {
        guard reportTimer == nil else { return }
        let owner = NIOLoopBound(self, eventLoop: eventLoop)
        let interval = Self.receiverReportInterval
        reportTimer = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            owner.value.sendReceiverReports(now: .now())
        }
    }

    private func sendReceiverReports(now: NIODeadline) {
        for (connection, var session) in sessions where session.connected {
            guard let ssrc = session.uplinkSSRC, var statistics = session.uplink else { continue }
            let block = statistics.reportBlock(ssrc: ssrc, now: now)
            session.uplink = statistics
            sessions[connection] = session
            let compound = RTCPPacket.receiverReport(ssrc: session.ssrc, reports: [block]).serialized()
                + RTCPPacket.sourceDescription(chunks: [.init(ssrc: session.ssrc, items: [.cname("carillon")])]).serialized()
            session.driver.sendRTCP(compound)
        }
    }

    private func handle(_ event: PeerConnectionEvent, from connection: SignalingConnectionID, driver: PeerConnectionDriver) {
        // Events of a replaced connection are stale.
        guard let session = sessions[connection], session.driver === driver else { return }
        switch event {
        case .rtp(let packet):
            let level = session.audioLevelExtensionId
                .flatMap { packet.extensionValue(id: $0) }
                .flatMap(RTPHeaderExtensionValue.audioLevel)?.level
            activity.record(session.attendeeId, sequenceNumber: packet.sequenceNumber, level: level)
            recordUplink(packet, connection: connection)
            mixer?.receive(packet, from: AudioMixer.ParticipantID(connection.rawValue),
                           audioLevelExtensionId: session.audioLevelExtensionId, arrival: .now())
        case .connected(let profile):
            sessions[connection]?.connected = true
            activity.add(session.attendeeId)
            startReportingActivity()
            startMixing(session, connection: connection)
            startReceiverReports()
            logger.debug("media connected", metadata: ["attendee": "\(session.attendeeId)", "srtp": "\(profile)"])
            onStateChange?(connection, event)
        case .failed, .closed:
            logger.debug("media ended", metadata: ["attendee": "\(session.attendeeId)", "event": "\(event)"])
            onStateChange?(connection, event)
            end(connection)
        case .rtcp(let packets):
            activity.recordControl(session.attendeeId)
            for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets where ssrc == session.uplinkSSRC {
                sessions[connection]?.uplink?.senderReportReceived(ntpTimestamp: NTPTimestamp(ntp), arrival: .now())
            }
        case .iceConnected, .pathChanged:
            break
        }
    }

    /// Counts a packet of the session's audio; a new SSRC (the client restarted its stream) starts new statistics.
    private func recordUplink(_ packet: RTPPacket, connection: SignalingConnectionID) {
        // Mutated through the dictionary in place: this runs for every packet.
        if sessions[connection]?.uplinkSSRC != packet.ssrc {
            sessions[connection]?.uplinkSSRC = packet.ssrc
            sessions[connection]?.uplink = RTPReceiveStatistics(clockRate: 48_000)
        }
        sessions[connection]?.uplink?.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp,
                                             arrival: .now())
    }
}
