import CarillonCodecs
import CarillonProtocol
import CarillonRTC
import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// Runs one session: the sans-IO ``SignalingSessionCore`` and its ``SignalingSocket`` on one event loop, with a single
/// timer, delivering events to the app's observers on the callback queue.
///
/// Threading: the core, the socket and the timer are touched only on `eventLoop`; every public entry point hops there
/// with one `execute`. A small mutex-guarded mirror answers the synchronous questions of the API (is the session
/// started, is it in the meeting) without waiting for the loop.
final class SessionEngine: @unchecked Sendable {
    let eventLoop: any EventLoop
    private let target: SignalingSocket.Target
    private let joinToken: String
    private let observers: ObserverRegistry
    private let callbackQueue: DispatchQueue
    private let logger: any Logger
    private let mirror = Mutex(Mirror())

    // Confined to `eventLoop`.
    private var core: SignalingSessionCore
    private var socket: SignalingSocket?
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.apply { $0.tick(now: $1) } }
    private var media: SessionMedia?
    /// Bumped whenever media is torn down, so a late bind or event of an abandoned connection is ignored.
    private var mediaGeneration = 0
    private lazy var certificate: DTLSCertificate? = try? DTLSCertificate.generate(commonName: "carillon-client")
    /// The chosen devices; read at each media connection and every frame (a new choice reopens them).
    let deviceController: DefaultDeviceController
    private var audio: SessionAudio?
    private var audioConfiguration = AudioVideoConfiguration()
    /// Poor/recovered verdicts and the dead-path check, kept across media connections of the session.
    private var health = AudioConnectionHealth(connectedAt: .now())

    /// The audio of the current media connection: devices, pipelines and the 20 ms clock.
    private struct SessionAudio {
        var input: any AudioInputSource
        var output: any AudioOutputSink
        let send: AudioSendPipeline
        let receive: AudioReceivePipeline
        var deviceGeneration: UInt64
        var nextFrame: NIODeadline
        var timer: Scheduled<Void>?
        /// The once-a-second metrics, on a grid from the start of audio.
        var metrics: ClientMetricsCollector
        /// The server's latest report block about the sent audio, and the round trip it measured.
        var sendReport: RTCPPacket.ReportBlock?
        var roundTrip: TimeAmount?
        var packetsSentBefore = 0
    }

    /// The media connection of the current signaling connection.
    private struct SessionMedia {
        let socket: PeerConnectionSocket
        let local: TransportDescription
        let certificate: DTLSCertificate
        let ssrc: UInt32
        var opusPayloadType: UInt8 = AudioSessionDescription.offeredOpusPayloadType
        var audioLevelExtensionId: UInt8?
    }

    struct Mirror {
        var started = false
        var inMeeting = false
    }

    init(
        configuration: MeetingSessionConfiguration,
        target: SignalingSocket.Target,
        observers: ObserverRegistry,
        callbackQueue: DispatchQueue,
        logger: any Logger,
        deviceController: DefaultDeviceController,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) {
        self.eventLoop = eventLoop
        self.deviceController = deviceController
        self.target = target
        self.joinToken = configuration.credentials.joinToken
        self.observers = observers
        self.callbackQueue = callbackQueue
        self.logger = logger
        self.core = SignalingSessionCore(
            credentials: configuration.credentials,
            audioHost: configuration.urls.audioHostUrl,
            audioSessionId: UInt64(UInt32.random(in: 1...UInt32.max))
        )
    }

    var isStarted: Bool { mirror.withLock { $0.started } }
    var isInMeeting: Bool { mirror.withLock { $0.inMeeting } }

    /// Marks the session started; false when it already was (checked and set atomically).
    func claimStart() -> Bool {
        mirror.withLock { mirror in
            guard !mirror.started else { return false }
            mirror.started = true
            return true
        }
    }

    func start(configuration: AudioVideoConfiguration) {
        let budget = TimeAmount.milliseconds(Int64(max(0, configuration.reconnectTimeoutMs)))
        eventLoop.execute {
            self.audioConfiguration = configuration
            self.apply { $0.start(reconnectBudget: budget, now: $1) }
        }
    }
    func stop() { eventLoop.execute { self.apply { $0.stop(now: $1) } } }

    func setMuted(_ muted: Bool) -> Bool {
        guard isInMeeting else { return false }
        eventLoop.execute {
            self.apply { core, now in core.setMuted(muted, now: now).actions }
            // Muted means nothing is sent (the server is told through AUDIO_CONTROL as well).
            self.audio?.send.setMuted(muted)
        }
        return true
    }

    /// Sends a validated data message; false when the session is not in the meeting.
    func sendDataMessage(topic: String, data: [UInt8], lifetimeMs: Int32) -> Bool {
        guard isInMeeting else { return false }
        eventLoop.execute {
            self.apply { core, now in core.dataMessage(topic: topic, data: data, lifetimeMs: lifetimeMs, now: now) ?? [] }
        }
        return true
    }

    // MARK: Running the core

    private func apply(_ step: (inout SignalingSessionCore, SessionTime) -> [SessionAction]) {
        eventLoop.assertInEventLoop()
        let actions = step(&core, .reading(monotonic: .now()))
        // The mirror changes before any event goes out, so an observer told "started" finds the session in the
        // meeting.
        let inMeeting = core.isInMeeting
        let stopped = core.phase == .stopped
        mirror.withLock { mirror in
            mirror.inMeeting = inMeeting
            if stopped { mirror.started = false }
        }
        perform(actions)
        rescheduleTimer()
    }

    private func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .openSocket:
                socket?.close()
                let opened = SignalingSocket.connect(to: target, joinToken: joinToken, on: eventLoop) { [weak self] event in
                    self?.socketEvent(event)
                }
                socket = opened
            case .send(let frame):
                do {
                    socket?.send(try SignalFrameCodec.encode(frame))
                } catch {
                    logger.error(msg: "could not encode a \(frame.type) frame: \(error)")
                }
            case .closeSocket:
                socket?.close()
                socket = nil
            case .event(let event):
                deliver(event)
            case .prepareMedia:
                prepareMedia()
            case .connectMedia(let answer):
                connectMedia(answer: answer)
            case .stopMedia:
                stopMedia()
            }
        }
    }

    // MARK: Media

    /// Binds a UDP socket on this loop, on the interface that reaches the server, and makes the offer.
    private func prepareMedia() {
        stopMedia()
        let generation = mediaGeneration
        guard let certificate else {
            logger.error(msg: "no DTLS certificate: media cannot connect")
            apply { $0.mediaFailed(now: $1) }
            return
        }
        let host = socket?.localAddress?.ipAddress ?? "0.0.0.0"
        let loop = eventLoop
        Task {
            let bound: PeerConnectionSocket
            do {
                bound = try await PeerConnectionSocket.bind(host: host, group: loop)
            } catch {
                loop.execute { [self] in
                    guard generation == mediaGeneration else { return }
                    logger.error(msg: "could not bind a media socket on \(host): \(error)")
                    apply { $0.mediaFailed(now: $1) }
                }
                return
            }
            loop.execute { [self] in
                guard generation == mediaGeneration else {
                    Task { await bound.close() }
                    return
                }
                let local = TransportDescription(
                    ice: .random(), fingerprint: certificate.fingerprint, setup: .actpass,
                    candidates: [TransportDescription.hostCandidate(for: bound.localAddress)])
                let ssrc = UInt32.random(in: 1...UInt32.max)
                media = SessionMedia(socket: bound, local: local, certificate: certificate, ssrc: ssrc)
                let offer = AudioSessionDescription.offer(transport: local, ssrc: ssrc, cname: core.credentials.attendeeId)
                apply { $0.mediaOfferReady(offer.serialized, now: $1) }
            }
        }
    }

    /// Applies the server's answer: a controlling ICE agent towards the answer's candidates, DTLS as negotiated.
    private func connectMedia(answer text: String) {
        guard var media else { return }
        let generation = mediaGeneration
        do {
            let answer = try SessionDescription(parsing: text)
            let remote = try TransportDescription(remote: answer)
            media.opusPayloadType = try AudioSessionDescription.opusPayloadType(in: answer)
            media.audioLevelExtensionId = answer.media.first { $0.kind == "audio" && $0.port != 0 }?
                .extensionId(for: SDPExtension.audioLevelURI)
            self.media = media
            let connection = try PeerConnection(configuration: PeerConnectionConfiguration(
                iceRole: .controlling(remoteCandidates: remote.udpAddresses()), localICE: media.local.ice,
                remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
                certificate: media.certificate, remoteFingerprint: remote.fingerprint))
            media.socket.attach(connection) { [self] event in mediaEvent(event, generation: generation) }
        } catch {
            logger.error(msg: "the server's answer cannot be used: \(error)")
            apply { $0.mediaFailed(now: $1) }
        }
    }

    /// Runs on this loop (the media socket is bound to it).
    private func mediaEvent(_ event: PeerConnectionEvent, generation: Int) {
        guard generation == mediaGeneration else { return }
        switch event {
        case .connected(let profile):
            logger.info(msg: "media connected (\(profile))")
            startAudio()
            apply { $0.mediaConnected(now: $1) }
        case .rtp(let packet):
            audio?.receive.receive(packet, arrival: .now())
        case .rtcp(let packets):
            received(packets)
        case .failed(let failure):
            logger.error(msg: "media failed: \(failure)")
            apply { $0.mediaFailed(now: $1) }
        case .closed:
            // The server closes media when it ends the session on purpose; signaling says why (and may arrive later
            // than this datagram), and ICE consent fails within 30 s if the server is gone for real.
            logger.info(msg: "the server closed the media connection")
        case .iceConnected, .pathChanged:
            break
        }
    }

    /// Reports about the audio this session sends (send loss for the metrics and the encoder's FEC), and the server's
    /// sender reports about what it receives (echoed in this session's reports).
    private func received(_ packets: [RTCPPacket]) {
        guard var audio, let media else { return }
        let now = NIODeadline.now()
        for packet in packets {
            let blocks: [RTCPPacket.ReportBlock]
            switch packet {
            case .senderReport(let ssrc, let ntp, _, _, _, let reports):
                audio.receive.senderReportReceived(ssrc: ssrc, ntpTimestamp: NTPTimestamp(ntp), arrival: now)
                blocks = reports
            case .receiverReport(_, let reports):
                blocks = reports
            default:
                continue
            }
            for block in blocks where block.ssrc == media.ssrc {
                audio.sendReport = block
                audio.metrics.addAudioSendReport(block, at: now)
                audio.send.setExpectedPacketLossPercent(Int(block.fractionLost) * 100 / 256)
                if let roundTrip = block.roundTripTime(arrival: .now()) {
                    audio.roundTrip = roundTrip
                }
            }
        }
        self.audio = audio
    }

    /// Opens the chosen devices and starts the 20 ms audio clock: capture, encode and send; play what arrives.
    private func startAudio() {
        stopAudio()
        guard let media else { return }
        let mode = audioConfiguration.audioMode
        let format = mode.format
        do {
            let send = try AudioSendPipeline(audioMode: mode, ssrc: media.ssrc, payloadType: media.opusPayloadType,
                                             audioLevelExtensionID: media.audioLevelExtensionId)
            send.setMuted(core.isMuted)
            let receive = try AudioReceivePipeline(audioMode: mode, payloadType: media.opusPayloadType)
            receive.decodes = audioConfiguration.audioDeviceCapabilities != .none
            let (input, output) = openDevices(format: format)
            let now = NIODeadline.now()
            audio = SessionAudio(input: input, output: output, send: send, receive: receive,
                                 deviceGeneration: deviceController.selectionGeneration, nextFrame: now,
                                 metrics: ClientMetricsCollector(start: now))
            health.connected(at: now)
            scheduleAudioFrame()
        } catch {
            logger.error(msg: "audio cannot start: \(error)")
        }
    }

    /// The chosen devices as the capabilities allow: without input capability the session sends silence (DTX keeps
    /// it to a few bytes), as Chime sends "muted" packets; without output capability nothing is played.
    private func openDevices(format: AudioFormat) -> (input: any AudioInputSource, output: any AudioOutputSink) {
        let capabilities = audioConfiguration.audioDeviceCapabilities
        let input: any AudioInputSource = capabilities == .inputAndOutput
            ? deviceController.openInput(format: format) : SilenceAudioSource(format: format)
        let output: any AudioOutputSink = capabilities == .none
            ? NullAudioSink(format: format) : deviceController.openOutput(format: format)
        return (input, output)
    }

    /// One-shot timers on a fixed 20 ms grid, so capture and playback do not drift with the loop's delays.
    private func scheduleAudioFrame() {
        guard var audio, audio.timer == nil else { return }
        let generation = mediaGeneration
        audio.timer = eventLoop.scheduleTask(deadline: audio.nextFrame) { [weak self] in
            guard let self, generation == self.mediaGeneration else { return }
            self.audioFrame()
        }
        self.audio = audio
    }

    private func audioFrame() {
        guard var audio else { return }
        audio.timer = nil
        let now = NIODeadline.now()
        if deviceController.selectionGeneration != audio.deviceGeneration {
            // The app chose another device: reopen both ends (within the session's capabilities).
            audio.output.close()
            (audio.input, audio.output) = openDevices(format: audioConfiguration.audioMode.format)
            audio.deviceGeneration = deviceController.selectionGeneration
        }
        if let packet = audio.send.process(audio.input.read(frameMilliseconds: 20)) {
            media?.socket.sendRTP(packet.serialized())
        }
        audio.output.write(audio.receive.nextFrame(now: now))
        if now >= audio.metrics.nextDeadline {
            secondElapsed(&audio, now: now)
        }
        audio.nextFrame = audio.nextFrame + .milliseconds(20)
        // After a stall (a suspended process, say) restart the grid instead of catching up in a burst.
        if audio.nextFrame < now - .milliseconds(100) { audio.nextFrame = now + .milliseconds(20) }
        self.audio = audio
        scheduleAudioFrame()
    }

    /// Once a second: the sender report, the metrics to the observers, and the connection-health verdict.
    private func secondElapsed(_ audio: inout SessionAudio, now: NIODeadline) {
        let interval = audio.receive.takeLossInterval()
        audio.metrics.addAudioReceiveCounts(expected: interval.expected, lost: interval.lost)
        if let media {
            let report = RTCPPacket.senderReport(
                ssrc: media.ssrc, ntpTimestamp: NTPTimestamp.now().value, rtpTimestamp: audio.send.nextTimestamp,
                packetCount: UInt32(truncatingIfNeeded: audio.send.statistics.packetsSent),
                octetCount: UInt32(truncatingIfNeeded: audio.send.statistics.payloadBytesSent),
                reports: audio.receive.reportBlock(now: now).map { [$0] } ?? [])
            let names = RTCPPacket.sourceDescription(chunks: [.init(ssrc: media.ssrc, items: [.cname(core.credentials.attendeeId)])])
            media.socket.sendRTCP(report.serialized() + names.serialized())
        }
        if let metrics = audio.metrics.advance(to: now) { deliver(metrics) }
        let clockRate = Double(AudioSendPipeline.clockRate)
        let measured = AudioClientMetrics(
            micPacketsPerSecond: Double(audio.send.statistics.packetsSent - audio.packetsSentBefore),
            micLossPercent: audio.sendReport.map { Double($0.fractionLost) * 100 / 256 },
            micJitterMilliseconds: audio.sendReport.map { Double($0.jitter) * 1000 / clockRate },
            micRoundTripMilliseconds: audio.roundTrip.map { Double($0.nanoseconds) / 1e6 },
            speakerPacketsPerSecond: Double(interval.received),
            speakerLossPercent: interval.expected > 0 ? interval.lossPercent : nil,
            speakerJitterMilliseconds: audio.receive.receiveStatistics.map { $0.jitterSeconds * 1000 },
            jitterBufferMilliseconds: Double(audio.receive.targetDelay.nanoseconds) / 1e6)
        audio.packetsSentBefore = audio.send.statistics.packetsSent
        apply { core, now in core.clientMetric(measured.frame, now: now) }
        switch health.record(packetsReceived: interval.received, now: now) {
        case .becamePoor:
            logger.info(msg: "the connection became poor (under half of the expected audio arrives)")
            let observers = self.observers
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidBecomePoor() } }
        case .recovered:
            logger.info(msg: "the connection recovered")
            let observers = self.observers
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidRecover() } }
        case .reconnect:
            logger.error(msg: "no audio received for \(AudioConnectionHealth.silentSamplesBeforeReconnect) s: reconnecting")
            // After this frame: the core tears the audio down.
            eventLoop.execute { [self] in apply { $0.mediaFailed(cause: .connectionHealthReconnect, now: $1) } }
        case nil:
            break
        }
    }

    private func deliver(_ metrics: [ObservableMetric: Double]) {
        let observers = self.observers
        callbackQueue.async {
            let dictionary = Dictionary(uniqueKeysWithValues: metrics.map { (AnyHashable($0.key), $0.value as Any) })
            observers.metricsObservers.forEach { $0.metricsDidReceive(metrics: dictionary) }
        }
    }

    private func stopAudio() {
        guard let audio else { return }
        audio.timer?.cancel()
        audio.output.close()
        self.audio = nil
    }

    private func stopMedia() {
        stopAudio()
        mediaGeneration += 1
        guard let media else { return }
        self.media = nil
        Task { await media.socket.close() }
    }

    private func socketEvent(_ event: SignalingSocket.Event) {
        switch event {
        case .opened:
            apply { $0.socketOpened(now: $1) }
        case .message(let bytes):
            do {
                let frame = try SignalFrameCodec.decode(bytes)
                apply { $0.received(frame, now: $1) }
            } catch {
                logger.error(msg: "dropped an undecodable signaling message: \(error)")
            }
        case .closed(let code):
            socket = nil
            apply { $0.socketClosed(code: code, now: $1) }
        }
    }

    private func rescheduleTimer() {
        timer.follow(core.nextDeadline)
    }

    // MARK: Delivering to the app

    private func deliver(_ event: SessionEvent) {
        let observers = self.observers
        let logger = self.logger
        switch event {
        case .startConnecting(let reconnecting):
            logger.info(msg: reconnecting ? "reconnecting" : "connecting")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidStartConnecting(reconnecting: reconnecting) } }
        case .started(let reconnecting):
            logger.info(msg: reconnecting ? "reconnected" : "joined the meeting")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidStart(reconnecting: reconnecting) } }
        case .dropped:
            logger.info(msg: "connection dropped")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidDrop() } }
        case .cancelledReconnect:
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidCancelReconnect() } }
        case .stopped(let code):
            logger.info(msg: "session stopped: \(code)")
            let status = MeetingSessionStatus(statusCode: code)
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidStopWithStatus(sessionStatus: status) } }
        case .roster(let changes):
            callbackQueue.async {
                for observer in observers.realtimeObservers {
                    if !changes.joined.isEmpty { observer.attendeesDidJoin(attendeeInfo: changes.joined) }
                    if !changes.left.isEmpty { observer.attendeesDidLeave(attendeeInfo: changes.left) }
                    if !changes.dropped.isEmpty { observer.attendeesDidDrop(attendeeInfo: changes.dropped) }
                    if !changes.muted.isEmpty { observer.attendeesDidMute(attendeeInfo: changes.muted) }
                    if !changes.unmuted.isEmpty { observer.attendeesDidUnmute(attendeeInfo: changes.unmuted) }
                }
            }
        case .volumes(let updates):
            callbackQueue.async { observers.realtimeObservers.forEach { $0.volumeDidChange(volumeUpdates: updates) } }
        case .signalStrengths(let updates):
            callbackQueue.async { observers.realtimeObservers.forEach { $0.signalStrengthDidChange(signalUpdates: updates) } }
        case .dataMessages(let messages):
            callbackQueue.async {
                for message in messages {
                    observers.dataMessageObservers(topic: message.topic).forEach { $0.dataMessageDidReceived(dataMessage: message) }
                }
            }
        }
    }
}
