import CarillonCodecs
import CarillonProtocol
import CarillonRTC
import Dispatch
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs one session on one event loop: the sans-IO ``SignalingSessionCore`` with its ``SignalingSocket``, and the
/// sans-IO ``SessionMediaCore`` with the media connection's socket and the audio devices, under a single timer that
/// follows the earlier of the two cores' deadlines. Events go to the app's observers on the callback queue.
///
/// The engine only does I/O: it reads the time (the loop's `now`, and the wall clock in one place, `readTime()`),
/// reads 20 ms from the input when a frame is due, and carries out what the cores ask (sockets, devices, delivery).
///
/// Threading: the cores, the sockets, the devices and the timer are touched only on `eventLoop`; every public entry
/// point hops there with one `execute`, and so does a device choice (the device controller's selection-change
/// handler). A small mutex-guarded mirror answers the synchronous questions of the API (is the session started, is
/// it in the meeting) without waiting for the loop; the loop writes it only when its answer changes.
final class SessionEngine: @unchecked Sendable {
    let eventLoop: any EventLoop
    private let target: SignalingSocket.Target
    /// The TLS client context of a `wss://` target.
    private let tls: NIOSSLContext?
    private let joinToken: String
    private let observers: ObserverRegistry
    /// Where the meeting events go (history, reporter, analytics observers).
    private let analytics: DefaultEventAnalyticsController?
    /// Whether the current start reached the meeting: a stop before that is `meetingStartFailed`.
    private var startSucceeded = false
    private let callbackQueue: DispatchQueue
    private let logger: any Logger
    private let mirror = Mutex(Mirror())
    /// The received videos' counters as of the last second, for any thread.
    private let videoStatistics = Mutex<[RemoteVideoStatistics]>([])

    // Confined to `eventLoop`.
    private var core: SignalingSessionCore
    /// One for the whole session: its connection-health verdicts span media connections.
    private let mediaCore = SessionMediaCore()
    /// The video of the current media connection.
    private let videoCore = SessionVideoCore()
    /// What the app asked for its local video: the cap (bit/s, 0 default) and whether it is screen content.
    private var videoSendSettings = (maximumBitrate: 0, screenContent: false)
    /// The size of the local video's pictures, as last told to the signaling core.
    private var videoSourceSize = (width: 0, height: 0)
    /// The app's `RemoteVideoSource` objects, one per attendee id (reused, as apps key subscriptions by them).
    /// Confined to the callback queue.
    private let remoteVideoSources = RemoteVideoSourceCache()
    private var socket: SignalingSocket?
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.timerFired() }
    private var media: SessionMedia?
    /// Bumped whenever media is torn down, so a late bind or event of an abandoned connection is ignored.
    private var mediaGeneration = 0
    private lazy var certificate: DTLSCertificate? = try? DTLSCertificate.generate(commonName: "carillon-client")
    /// The chosen devices; the media core asks for them at each media connection and after each new choice.
    let deviceController: DefaultDeviceController
    /// The devices the media core asked for, open while its audio runs.
    private var devices: OpenDevices?
    private var audioConfiguration = AudioVideoConfiguration()
    /// What the mirror was last told, so that steps which change neither answer take no lock.
    private var published = (inMeeting: false, stopped: false)

    /// The media connection of the current signaling connection.
    private struct SessionMedia {
        let socket: PeerConnectionSocket
        let local: TransportDescription
        let certificate: DTLSCertificate
        let ssrc: UInt32
        /// The camera stream's SSRCs, fixed for the connection.
        let videoSSRCs: (media: UInt32, rtx: UInt32)
        /// The server's answer, once it came.
        var answer: SessionMediaAnswer?
        /// What the last SUBSCRIBE_ACK settled about video.
        var video: SessionVideoNegotiation?
    }

    /// The input read every frame and the output written every frame.
    private struct OpenDevices {
        var input: any AudioInputSource
        let output: any AudioOutputSink
    }

    /// The environment variable that turns echo cancellation, gain control and the high-pass filter off on real
    /// devices: `CARILLON_ECHO_CANCELLATION=off` (for a headset, or an external canceller).
    static let echoCancellationVariable = "CARILLON_ECHO_CANCELLATION"
    /// Read once per process: whether echo cancellation may run on real devices.
    static let echoCancellationAllowed: Bool = {
        guard let value = getenv(echoCancellationVariable) else { return true }
        return !["off", "0", "false", "no"].contains(String(cString: value).lowercased())
    }()

    struct Mirror {
        var started = false
        var inMeeting = false
        /// What the app last asked of Voice Focus in this session (the media core applies it on the loop).
        var voiceFocus = false
    }

    init(
        configuration: MeetingSessionConfiguration,
        target: SignalingSocket.Target,
        tls: NIOSSLContext? = nil,
        observers: ObserverRegistry,
        analytics: DefaultEventAnalyticsController? = nil,
        callbackQueue: DispatchQueue,
        logger: any Logger,
        deviceController: DefaultDeviceController,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) {
        self.eventLoop = eventLoop
        self.deviceController = deviceController
        self.target = target
        self.tls = tls
        self.joinToken = configuration.credentials.joinToken
        self.observers = observers
        self.analytics = analytics
        self.callbackQueue = callbackQueue
        self.logger = logger
        self.core = SignalingSessionCore(
            credentials: configuration.credentials,
            audioHost: configuration.urls.audioHostUrl,
            audioSessionId: UInt64(UInt32.random(in: 1...UInt32.max))
        )
        deviceController.setSelectionChangeHandler { [weak self] in
            guard let self else { return }
            // The hop from whoever changed the selection (an app thread, the controller's poll queue) to the loop.
            eventLoop.execute { self.applyMedia { media, _ in media.devicesChanged() } }
        }
    }

    var isStarted: Bool { mirror.withLock { $0.started } }
    var isInMeeting: Bool { mirror.withLock { $0.inMeeting } }

    /// Marks the session started; false when it already was (checked and set atomically).
    func claimStart() -> Bool {
        mirror.withLock { mirror in
            guard !mirror.started else { return false }
            mirror.started = true
            // Chime: Voice Focus is off whenever the audio session starts.
            mirror.voiceFocus = false
            return true
        }
    }

    func start(configuration: AudioVideoConfiguration) {
        let budget = TimeAmount.milliseconds(Int64(max(0, configuration.reconnectTimeoutMs)))
        eventLoop.execute {
            self.audioConfiguration = configuration
            // Off at every start (a library, not a state, is held here: nothing to fail).
            try? self.mediaCore.setVoiceFocus(nil)
            self.apply { $0.start(reconnectBudget: budget, now: $1) }
        }
    }
    func stop() { eventLoop.execute { self.apply { $0.stop(now: $1) } } }

    /// The received videos' counters as of the last second.
    var remoteVideoStatistics: [RemoteVideoStatistics] { videoStatistics.withLock { $0 } }

    /// Where remote video goes (the tile controller); set once by the facade before `start`.
    private(set) var remoteVideoSink: (any RemoteVideoFrameSink)?

    /// Sets where remote video goes; called once by the facade, before the session starts.
    func attachRemoteVideo(_ sink: any RemoteVideoFrameSink) {
        eventLoop.execute { self.remoteVideoSink = sink }
    }

    /// Mutes or unmutes; true once the session is started (before media connects too), false when it is not.
    func setMuted(_ muted: Bool) -> Bool {
        guard isStarted else { return false }
        eventLoop.execute {
            self.apply { core, now in core.setMuted(muted, now: now).actions }
            // Muted means nothing is sent (the server is told through AUDIO_CONTROL as well).
            self.mediaCore.setMuted(muted)
        }
        return true
    }

    /// Whether Voice Focus is on (as last set by ``setVoiceFocus(_:)`` in this session).
    var isVoiceFocusEnabled: Bool { mirror.withLock { $0.voiceFocus } }

    /// Turns Voice Focus on with `library` (the loaded RNNoise) or off with nil, from the next 20 ms frame; fails with
    /// `audioClientNotStarted` when the session is not in the meeting. The change is one hop to the loop: the frame
    /// path itself takes no lock.
    func setVoiceFocus(_ library: RNNoiseLibrary?) -> VoiceFocusError? {
        guard isInMeeting else { return .audioClientNotStarted }
        mirror.withLock { $0.voiceFocus = library != nil }
        eventLoop.execute {
            do {
                try self.mediaCore.setVoiceFocus(library)
            } catch {
                self.logger.error(msg: "Voice Focus could not start: \(error)")
                self.mirror.withLock { $0.voiceFocus = false }
            }
        }
        return nil
    }

    /// Sends a validated data message; false when the session is not in the meeting.
    func sendDataMessage(topic: String, data: [UInt8], lifetimeMs: Int32) -> Bool {
        guard isInMeeting else { return false }
        eventLoop.execute {
            self.apply { core, now in core.dataMessage(topic: topic, data: data, lifetimeMs: lifetimeMs, now: now) ?? [] }
        }
        return true
    }

    // MARK: Running the cores

    /// The one reading of the clocks: the loop's monotonic `now` and the wall clock.
    private func readTime() -> SessionTime {
        SessionTime.reading(monotonic: eventLoop.now)
    }

    /// Steps the signaling core (at `now`, or at a fresh reading) and carries out its actions.
    private func apply(at now: SessionTime? = nil, _ step: (inout SignalingSessionCore, SessionTime) -> [SessionAction]) {
        eventLoop.assertInEventLoop()
        let actions = step(&core, now ?? readTime())
        // The mirror changes before any event goes out, so an observer told "started" finds the session in the
        // meeting.
        publishMirror()
        perform(actions)
        rescheduleTimer()
    }

    /// Steps the media core (at `now`, or at a fresh reading) and carries out its effects.
    private func applyMedia(at now: SessionTime? = nil, _ step: (SessionMediaCore, SessionTime) -> [SessionMediaEffect]) {
        eventLoop.assertInEventLoop()
        let now = now ?? readTime()
        perform(step(mediaCore, now), now: now)
        rescheduleTimer()
    }

    /// The timer follows the earlier deadline of the two cores; each core whose deadline passed takes its step.
    private func timerFired() {
        let now = readTime()
        if let due = mediaCore.nextDeadline, due <= now.monotonic {
            // Reading the device is I/O, so it happens here; the core decides what the frame becomes.
            let captured = devices?.input.read(frameMilliseconds: SessionMediaCore.frameMilliseconds)
            applyMedia(at: now) { media, now in media.frameTick(captured: captured, now: now) }
        }
        if let due = videoCore.nextDeadline, due <= now.monotonic {
            videoCore.roundTrip = mediaCore.roundTrip ?? SessionVideoCore.defaultRoundTrip
            perform(videoCore.tick(now: now.monotonic), now: now)
        }
        if let due = core.nextDeadline, due <= now.monotonic {
            apply(at: now) { $0.tick(now: $1) }
        }
        rescheduleTimer()
    }

    /// The timer follows the earliest deadline of the cores.
    private func rescheduleTimer() {
        timer.follow(core.nextDeadline.earlier(mediaCore.nextDeadline).earlier(videoCore.nextDeadline))
    }

    /// Tells the mirror what changed: in the meeting or not, and "not started" once the core stopped.
    private func publishMirror() {
        let inMeeting = core.isInMeeting
        let stopped = core.phase == .stopped
        guard inMeeting != published.inMeeting || stopped != published.stopped else { return }
        let becameStopped = stopped && !published.stopped
        published = (inMeeting, stopped)
        mirror.withLock { mirror in
            mirror.inMeeting = inMeeting
            if becameStopped { mirror.started = false }
        }
    }

    private func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .openSocket:
                socket?.close()
                let opened = SignalingSocket.connect(to: target, joinToken: joinToken, tls: tls, on: eventLoop) { [weak self] event in
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
            case .prepareMedia(let plan):
                prepareMedia(plan)
            case .renegotiateMedia(let plan):
                renegotiateMedia(plan)
            case .connectMedia(let answer, let video):
                connectMedia(answer: answer, video: video)
            case .applyAnswer(let answer, let video):
                applyAnswer(answer, video: video)
            case .stopMedia:
                stopMedia()
            case .setVideoPausedAtSource(let streamIds):
                let now = readTime()
                perform(videoCore.setPausedAtSource(streamIds), now: now)
            }
        }
    }

    private func perform(_ effects: [SessionMediaEffect], now: SessionTime) {
        for effect in effects {
            switch effect {
            case .openDevices(let format, let microphone, let speaker):
                devices?.output.close()
                let opened = OpenDevices(
                    input: microphone ? deviceController.openInput(format: format) : SilenceAudioSource(format: format),
                    output: speaker ? deviceController.openOutput(format: format) : NullAudioSink(format: format))
                devices = opened
                // Echo exists only between a real speaker and a real microphone; virtual devices have none to cancel.
                let cancelsEcho = Self.echoCancellationAllowed
                    && opened.input is ALSACaptureSource && opened.output is ALSAPlaybackSink
                do { try mediaCore.setEchoCancellation(cancelsEcho) } catch {
                    logger.error(msg: "echo cancellation is unavailable: \(error)")
                }
            case .closeDevices:
                devices?.output.close()
                devices = nil
            case .sendRTP(let packet):
                media?.socket.sendRTP(packet)
            case .sendRTCP(let compound):
                media?.socket.sendRTCP(compound)
            case .play(let frame):
                devices?.output.write(frame)
            case .videoStatistics(let statistics):
                videoStatistics.withLock { $0 = statistics }
            case .videoMetrics(let metrics):
                mediaCore.videoMetricsMeasured(metrics, now: now.monotonic)
            case .remoteVideoFrame(let image, let timestamp, let videoId, let attendeeId):
                guard let sink = remoteVideoSink else { continue }
                callbackQueue.async {
                    sink.remoteVideoFrame(image, timestampNanoseconds: timestamp, videoId: videoId,
                                          attendeeId: attendeeId, pausedForPoorConnection: false)
                }
            case .remoteVideoArrived(let width, let height, let timestamp, let videoId, let attendeeId):
                guard let sink = remoteVideoSink else { continue }
                callbackQueue.async {
                    sink.remoteVideoArrived(width: width, height: height, timestampNanoseconds: timestamp,
                                            videoId: videoId, attendeeId: attendeeId)
                }
            case .remoteVideoPausedAtSource(let videoId, let attendeeId):
                guard let sink = remoteVideoSink else { continue }
                let timestamp = Int64(truncatingIfNeeded: now.monotonic.uptimeNanoseconds)
                callbackQueue.async {
                    sink.remoteVideoFrame(nil, timestampNanoseconds: timestamp, videoId: videoId, attendeeId: attendeeId,
                                          pausedForPoorConnection: true)
                }
            case .metrics(let metrics):
                deliver(metrics)
            case .clientMetric(let frame):
                apply(at: now) { core, now in core.clientMetric(frame, now: now) }
            case .connectionBecamePoor:
                logger.info(msg: "the connection became poor (under half of the expected audio arrives)")
                let observers = self.observers
                analytics?.connectionBecamePoor()
                callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidBecomePoor() } }
            case .connectionRecovered:
                logger.info(msg: "the connection recovered")
                let observers = self.observers
                callbackQueue.async { observers.audioVideoObservers.forEach { $0.connectionDidRecover() } }
            case .reconnect:
                logger.error(msg: "no audio received for \(AudioConnectionHealth.silentSamplesBeforeReconnect) s: reconnecting")
                apply(at: now) { $0.mediaFailed(cause: .connectionHealthReconnect, now: $1) }
            }
        }
    }

    // MARK: Media

    /// Binds a UDP socket on this loop, on the interface that reaches the server, and makes the offer.
    private func prepareMedia(_ plan: SessionMediaPlan) {
        stopMedia()
        let generation = mediaGeneration
        guard let certificate else {
            logger.error(msg: "no DTLS certificate: media cannot connect")
            apply { $0.mediaFailed(now: $1) }
            return
        }
        let host = socket?.localAddress?.ipAddress ?? "0.0.0.0"
        // The socket belongs to this loop, so the future completes here: no hop.
        PeerConnectionSocket.bind(host: host, on: eventLoop).whenComplete { [self] result in
            switch result {
            case .failure(let error):
                guard generation == mediaGeneration else { return }
                logger.error(msg: "could not bind a media socket on \(host): \(error)")
                apply { $0.mediaFailed(now: $1) }
            case .success(let bound):
                guard generation == mediaGeneration else {
                    bound.close(promise: nil)
                    return
                }
                let local = TransportDescription(
                    ice: .random(), fingerprint: certificate.fingerprint, setup: .actpass,
                    candidates: [TransportDescription.hostCandidate(for: bound.localAddress)])
                let ssrc = UInt32.random(in: 1...UInt32.max)
                let videoSSRCs = (UInt32.random(in: 1...UInt32.max), UInt32.random(in: 1...UInt32.max))
                media = SessionMedia(socket: bound, local: local, certificate: certificate, ssrc: ssrc,
                                     videoSSRCs: videoSSRCs)
                let offer = plan.offer(transport: local, audioSSRC: ssrc, videoSSRCs: videoSSRCs,
                                       cname: core.credentials.attendeeId)
                apply { $0.mediaOfferReady(offer.serialized, now: $1) }
            }
        }
    }

    /// A new offer on the running media connection (same transport): only the video m-lines change.
    private func renegotiateMedia(_ plan: SessionMediaPlan) {
        guard let media else { return }
        let offer = plan.offer(transport: media.local, audioSSRC: media.ssrc, videoSSRCs: media.videoSSRCs,
                               cname: core.credentials.attendeeId)
        apply { $0.mediaOfferReady(offer.serialized, now: $1) }
    }

    /// Applies the answer to a renegotiation: the video core takes the new send and receive configuration.
    private func applyAnswer(_ text: String, video: SessionVideoNegotiation) {
        guard var media else { return }
        do {
            media.answer = try SessionMediaAnswer(answer: text, local: media.local, certificate: media.certificate)
            media.video = video
            self.media = media
            configureVideo()
        } catch {
            logger.error(msg: "the server's answer to a renegotiation cannot be used: \(error)")
        }
    }

    /// Hands the video core what the current answer and SUBSCRIBE_ACK settled (once media is connected).
    private func configureVideo() {
        guard let media, let answer = media.answer, let video = media.video, mediaCore.isConnected else { return }
        var send: SessionVideoCore.SendConfiguration?
        if video.plan.sendsVideo, !video.sendingRefused, let accepted = answer.videoSend {
            send = SessionVideoCore.SendConfiguration(
                ssrc: media.videoSSRCs.media, rtxSSRC: media.videoSSRCs.rtx, payloadType: accepted.payloadType,
                rtxPayloadType: accepted.rtxPayloadType, transportCCExtensionId: accepted.transportCCExtensionId,
                cname: core.credentials.attendeeId, streamId: video.sendStreamId,
                maximumBitrate: videoSendSettings.maximumBitrate, screenContent: videoSendSettings.screenContent)
            if !video.plan.sendLayers.isEmpty, accepted.ridExtensionId != nil {
                send?.simulcast = SessionVideoCore.simulcastStreams(video.plan.sendLayers, videoSSRCs: media.videoSSRCs)
                send?.ridExtensionId = accepted.ridExtensionId
                send?.repairedRidExtensionId = accepted.repairedRidExtensionId
            }
        }
        let tracks = video.tracks.compactMap { track -> SessionVideoCore.ReceiveTrack? in
            guard let line = answer.videoReceive.first(where: { $0.mid == track.mid }) else { return nil }
            return SessionVideoCore.ReceiveTrack(
                mid: track.mid, streamId: track.streamId, groupId: track.groupId, attendeeId: track.attendeeId, ssrc: line.ssrc,
                rtxSSRC: line.rtxSSRC, payloadType: line.payloadType, rtxPayloadType: line.rtxPayloadType,
                transportCCExtensionId: line.transportCCExtensionId)
        }
        let now = readTime()
        perform(videoCore.configure(send: send, receive: tracks, reportSSRC: media.ssrc, now: now.monotonic), now: now)
        rescheduleTimer()
    }

    /// Applies the server's answer: a controlling ICE agent towards the answer's candidates, DTLS as negotiated.
    private func connectMedia(answer text: String, video: SessionVideoNegotiation) {
        guard var media else { return }
        let generation = mediaGeneration
        do {
            let answer = try SessionMediaAnswer(answer: text, local: media.local, certificate: media.certificate)
            media.answer = answer
            media.video = video
            self.media = media
            let connection = try PeerConnection(configuration: answer.configuration)
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
            configureVideo()
            apply { $0.mediaConnected(now: $1) }
        case .rtp(let packet):
            let now = readTime()
            if videoCore.receives(ssrc: packet.ssrc) {
                perform(videoCore.received(rtp: packet, now: now.monotonic), now: now)
                rescheduleTimer()
            } else {
                mediaCore.received(rtp: packet, now: now)
            }
        case .rtcp(let packets):
            let now = readTime()
            mediaCore.received(rtcp: packets, now: now)
            // The video core takes feedback about what it sends and the server's sender reports about what it
            // receives (echoed so the server measures its round trip).
            let effects = videoCore.received(rtcp: packets, now: now.monotonic)
            if !effects.isEmpty {
                perform(effects, now: now)
                rescheduleTimer()
            }
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

    /// Starts the media core's audio for the connected media: it asks for the devices and runs the 20 ms clock.
    private func startAudio() {
        guard let media, let answer = media.answer else { return }
        let connection = SessionMediaCore.Connection(
            ssrc: media.ssrc, cname: core.credentials.attendeeId, payloadType: answer.opusPayloadType,
            audioLevelExtensionId: answer.audioLevelExtensionId, audioMode: audioConfiguration.audioMode,
            capabilities: audioConfiguration.audioDeviceCapabilities, muted: core.isMuted)
        applyMedia { [logger] media, now in
            do {
                return try media.connected(connection, now: now)
            } catch {
                logger.error(msg: "audio cannot start: \(error)")
                return []
            }
        }
    }

    /// The meeting event of a stop: `meetingStartFailed` before the meeting was reached, `meetingEnded` for a leave
    /// or an end the server decided (hung up, joined elsewhere, call ended), `meetingFailed` otherwise.
    private func publishStop(_ code: MeetingSessionStatusCode) {
        guard let analytics else { return }
        let status: [AnyHashable: Any] = [EventAttributeName.meetingStatus: code.description]
        var failure = status
        failure[EventAttributeName.meetingErrorMessage] = "session stopped with \(code)"
        if !startSucceeded {
            analytics.publishEvent(name: .meetingStartFailed, attributes: failure)
        } else if [.ok, .audioServerHungup, .audioJoinedFromAnotherDevice, .audioCallEnded].contains(code) {
            analytics.publishEvent(name: .meetingEnded, attributes: status)
        } else {
            analytics.publishEvent(name: .meetingFailed, attributes: failure)
        }
    }

    private func deliver(_ metrics: [ObservableMetric: Double]) {
        let observers = self.observers
        callbackQueue.async {
            let dictionary = Dictionary(uniqueKeysWithValues: metrics.map { (AnyHashable($0.key), $0.value as Any) })
            observers.metricsObservers.forEach { $0.metricsDidReceive(metrics: dictionary) }
        }
    }

    private func stopMedia() {
        applyMedia { media, _ in media.stop() }
        let now = readTime()
        perform(videoCore.stop(now: now.monotonic), now: now)
        mediaGeneration += 1
        guard let media else { return }
        self.media = nil
        media.socket.close(promise: nil)
    }

    private func socketEvent(_ event: SignalingSocket.Event) {
        switch event {
        case .opened:
            analytics?.publishEvent(name: .videoClientSignalingOpened)
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
            if core.isInMeeting {
                analytics?.publishEvent(name: .videoClientSignalingDropped, attributes: [
                    EventAttributeName.signalingDroppedError: code.map { "closed with code \($0)" } ?? "connection lost",
                ])
            }
            apply { $0.socketClosed(code: code, now: $1) }
        case .tlsFailed(let reason):
            socket = nil
            logger.error(msg: "signaling TLS failed, not retrying (the join token was not sent): \(reason)")
            apply { $0.socketFailedTLS(now: $1) }
        }
    }

    // MARK: Delivering to the app

    private func deliver(_ event: SessionEvent) {
        let observers = self.observers
        let logger = self.logger
        switch event {
        case .startConnecting(let reconnecting):
            if reconnecting {
                analytics?.reconnecting()
            } else {
                startSucceeded = false
                analytics?.publishEvent(name: .meetingStartRequested)
            }
            logger.info(msg: reconnecting ? "reconnecting" : "connecting")
            callbackQueue.async {
                observers.audioVideoObservers.forEach { $0.audioSessionDidStartConnecting(reconnecting: reconnecting) }
                // The video side connects with the session (one connection carries both).
                if !reconnecting { observers.audioVideoObservers.forEach { $0.videoSessionDidStartConnecting() } }
            }
        case .started(let reconnecting):
            startSucceeded = true
            analytics?.publishEvent(name: reconnecting ? .meetingReconnected : .meetingStartSucceeded)
            logger.info(msg: reconnecting ? "reconnected" : "joined the meeting")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidStart(reconnecting: reconnecting) } }
        case .dropped:
            logger.info(msg: "connection dropped")
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidDrop() } }
        case .cancelledReconnect:
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.audioSessionDidCancelReconnect() } }
        case .stopped(let code):
            publishStop(code)
            logger.info(msg: "session stopped: \(code)")
            let status = MeetingSessionStatus(statusCode: code)
            let videoStatus = MeetingSessionStatus(statusCode: code == .ok ? .ok : .videoServiceUnavailable)
            callbackQueue.async {
                observers.audioVideoObservers.forEach { $0.audioSessionDidStopWithStatus(sessionStatus: status) }
                observers.audioVideoObservers.forEach { $0.videoSessionDidStopWithStatus(sessionStatus: videoStatus) }
            }
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
        case .remoteVideoSources(let available, let unavailable):
            let cache = remoteVideoSources
            callbackQueue.async {
                let gone = cache.remove(unavailable)
                let added = cache.sources(for: available)
                if !gone.isEmpty { observers.audioVideoObservers.forEach { $0.remoteVideoSourcesDidBecomeUnavailable(sources: gone) } }
                if !added.isEmpty { observers.audioVideoObservers.forEach { $0.remoteVideoSourcesDidBecomeAvailable(sources: added) } }
            }
        case .videoStarted(let code):
            logger.info(msg: "video started: \(code)")
            let status = MeetingSessionStatus(statusCode: code)
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.videoSessionDidStartWithStatus(sessionStatus: status) } }
        case .cameraSendAvailability(let available):
            callbackQueue.async { observers.audioVideoObservers.forEach { $0.cameraSendAvailabilityDidChange(available: available) } }
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

extension SessionEngine: SessionVideoControl {
    func startSendingVideo(maxBitRateKbps: UInt32, screenContent: Bool, simulcast: Bool, highResolution: Bool) {
        eventLoop.execute {
            self.videoSendSettings = (Int(maxBitRateKbps) * 1_000, screenContent)
            self.apply {
                $0.setSendingVideo(true, maxBitrateKbps: maxBitRateKbps, simulcast: simulcast,
                                   highResolution: highResolution, now: $1)
            }
        }
    }

    func stopSendingVideo() {
        eventLoop.execute { self.apply { $0.setSendingVideo(false, now: $1) } }
    }

    func sendVideoFrame(_ image: I420Image, timestampNanoseconds: Int64) {
        // The one hop per frame, from the source's thread to the session's loop.
        eventLoop.execute {
            if (image.width, image.height) != self.videoSourceSize {
                // The simulcast layers' sizes, for SUBSCRIBE.
                self.videoSourceSize = (image.width, image.height)
                self.apply { $0.setVideoSourceSize(width: image.width, height: image.height, now: $1) }
            }
            guard self.videoCore.isSending else { return }
            let now = self.readTime()
            self.perform(self.videoCore.send(image, timestampNanoseconds: timestampNanoseconds, now: now.monotonic), now: now)
            self.rescheduleTimer()
        }
    }

    func setReceivingVideo(_ receiving: Bool) {
        eventLoop.execute { self.apply { $0.setReceivingVideo(receiving, now: $1) } }
    }

    func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String]) {
        eventLoop.execute {
            self.apply { $0.updateVideoSubscriptions(addedOrUpdated: addedOrUpdated, removed: removed, now: $1) }
        }
    }

    func setRemoteVideoPaused(_ paused: Bool, videoId: Int) {
        guard let groupId = UInt32(exactly: videoId) else { return }
        eventLoop.execute { self.apply { $0.setRemoteVideoPaused(paused, groupId: groupId, now: $1) } }
    }

    func setRemoteVideoDecoded(_ decoded: Bool, videoId: Int) {
        eventLoop.execute {
            let now = self.readTime()
            self.perform(self.videoCore.setDecoded(decoded, videoId: videoId, now: now.monotonic), now: now)
        }
    }
}
