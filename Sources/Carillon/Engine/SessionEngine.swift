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

/// The I/O shell of one session on one event loop: it runs the sans-IO ``SessionCore`` (signaling, audio, video and
/// the peer connection, wired together) and does what the core asks: the ``SignalingSocket``, the media UDP socket,
/// the audio devices, one timer at the core's deadline, and delivery to the app's observers on the callback queue.
///
/// It reads the time (the loop's `now`, and the wall clock in one place, `readTime()`) and 20 ms from the input when
/// the core says a frame is due; nothing else is decided here.
///
/// Threading: the core, the sockets, the devices and the timer are touched only on `eventLoop`; every public entry
/// point hops there with one `execute`, and so does a device choice (the device controller's selection-change
/// handler). A small mutex-guarded mirror answers the synchronous questions of the API (is the session started, is
/// it in the meeting) without waiting for the loop; the loop writes it only when its answer changes.
package final class SessionEngine: @unchecked Sendable {
    /// The session's loop: the core, the sockets, the devices and the timer live here.
    package let eventLoop: any EventLoop
    private let target: SignalingSocket.Target
    /// The TLS client context of a `wss://` target.
    private let tls: NIOSSLContext?
    private let joinToken: String
    /// Where the meeting events go (history, reporter, analytics observers).
    private let analytics: DefaultEventAnalyticsController?
    /// What the app is told, on the callback queue.
    private let delivery: SessionEventDelivery
    private let logger: any Logger
    private let mirror = Mutex(Mirror())
    /// The received videos' counters as of the last second, for any thread.
    private let videoStatistics = Mutex<[RemoteVideoStatistics]>([])

    // Confined to `eventLoop`.
    let core: SessionCore
    private var socket: (any SessionSignalingChannel)?
    /// The media connection's UDP socket, and the core's media generation it was bound for.
    private var mediaSocket: (socket: any SessionMediaChannel, generation: Int)?
    private let transports: any SessionTransports
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.timerFired() }
    /// The chosen devices; the media core asks for them at each media connection and after each new choice.
    let deviceController: DefaultDeviceController
    /// The devices the media core asked for, open while its audio runs.
    private var devices: OpenDevices?
    /// What the mirror was last told, so that steps which change neither answer take no lock.
    private var published = (inMeeting: false, stopped: false)

    /// The input read every frame and the output written every frame.
    private struct OpenDevices {
        /// The input when it delivers PCM (nil when it delivers Opus: it is held once, in ``encodedInput``).
        var input: (any AudioInputSource)?
        /// The input when it delivers Opus.
        var encodedInput: (any EncodedAudioInputSource)?
        let output: any AudioOutputSink

        init(input: any AudioInputSource, output: any AudioOutputSink) {
            if let encoded = input as? any EncodedAudioInputSource {
                encodedInput = encoded
            } else {
                self.input = input
            }
            self.output = output
        }
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
        activeSpeakerDetector: DefaultActiveSpeakerDetector? = nil,
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(),
        transports: any SessionTransports = NetworkSessionTransports(),
        certificate: DTLSCertificate? = try? DTLSCertificate.generate(commonName: "carillon-client")
    ) {
        self.transports = transports
        self.eventLoop = eventLoop
        self.deviceController = deviceController
        self.target = target
        self.tls = tls
        self.joinToken = configuration.credentials.joinToken
        self.analytics = analytics
        self.delivery = SessionEventDelivery(observers: observers, analytics: analytics, callbackQueue: callbackQueue,
                                             logger: logger, activeSpeakerDetector: activeSpeakerDetector)
        self.logger = logger
        self.core = SessionCore(
            credentials: configuration.credentials,
            audioHost: configuration.urls.audioHostUrl,
            audioSessionId: UInt64(UInt32.random(in: 1...UInt32.max)),
            certificate: certificate,
            logger: logger
        )
        deviceController.setSelectionChangeHandler { [weak self] in
            guard let self else { return }
            // The hop from whoever changed the selection (an app thread, the controller's poll queue) to the loop.
            eventLoop.execute { self.apply { $0.devicesChanged(now: $1) } }
        }
    }

    /// Whether the session is started (and not stopped since).
    package var isStarted: Bool { mirror.withLock { $0.started } }
    /// Whether the session is in the meeting (signaling joined, media connected).
    package var isInMeeting: Bool { mirror.withLock { $0.inMeeting } }

    /// Marks the session started; false when it already was (checked and set atomically).
    package func claimStart() -> Bool {
        mirror.withLock { mirror in
            guard !mirror.started else { return false }
            mirror.started = true
            // Chime: Voice Focus is off whenever the audio session starts.
            mirror.voiceFocus = false
            return true
        }
    }

    /// Starts the session (after ``claimStart()``): signaling connects.
    package func start(configuration: AudioVideoConfiguration) {
        let budget = TimeAmount.milliseconds(Int64(max(0, configuration.reconnectTimeoutMs)))
        eventLoop.execute { self.apply { $0.start(configuration: configuration, reconnectBudget: budget, now: $1) } }
    }
    /// Stops the session: LEAVE, then media and signaling close.
    package func stop() { eventLoop.execute { self.apply { $0.stop(now: $1) } } }

    /// The received videos' counters as of the last second.
    var remoteVideoStatistics: [RemoteVideoStatistics] { videoStatistics.withLock { $0 } }

    /// Sets where remote video goes (the tile controller); called once by the facade, before the session starts.
    func attachRemoteVideo(_ sink: any RemoteVideoFrameSink) {
        eventLoop.execute { self.delivery.remoteVideoSink = sink }
    }

    /// Mutes or unmutes; true once the session is started (before media connects too), false when it is not.
    package func setMuted(_ muted: Bool) -> Bool {
        guard isStarted else { return false }
        eventLoop.execute { self.apply { $0.setMuted(muted, now: $1) } }
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
                try self.core.setVoiceFocus(library)
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
            self.apply { $0.sendDataMessage(topic: topic, data: data, lifetimeMs: lifetimeMs, now: $1) }
        }
        return true
    }

    // MARK: Running the core

    /// The one reading of the clocks: the loop's monotonic `now` and the wall clock.
    private func readTime() -> SessionTime {
        SessionTime.reading(monotonic: eventLoop.now)
    }

    /// Steps the core at a fresh reading of the clocks and carries out what it asks.
    func apply(_ step: (SessionCore, SessionTime) -> [SessionCoreEffect]) {
        eventLoop.assertInEventLoop()
        let now = readTime()
        let effects = step(core, now)
        // The mirror changes before any event goes out, so an observer told "started" finds the session in the
        // meeting.
        publishMirror()
        perform(effects, now: now)
        timer.follow(core.nextDeadline)
    }

    /// The core's deadline: reading the input is I/O, so it happens here when the core says a frame is due.
    private func timerFired() {
        apply { core, now in
            guard core.isAudioFrameDue(now: now.monotonic) else { return core.tick(now: now, captured: nil) }
            if devices?.encodedInput != nil { return core.tick(now: now, encoded: devices?.encodedInput?.readEncoded()) }
            return core.tick(now: now, captured: devices?.input?.read(frameMilliseconds: SessionMediaCore.frameMilliseconds))
        }
    }

    /// Tells the mirror what changed: in the meeting or not, and "not started" once the core stopped.
    private func publishMirror() {
        let inMeeting = core.signaling.isInMeeting
        let stopped = core.signaling.phase == .stopped
        guard inMeeting != published.inMeeting || stopped != published.stopped else { return }
        let becameStopped = stopped && !published.stopped
        published = (inMeeting, stopped)
        mirror.withLock { mirror in
            mirror.inMeeting = inMeeting
            if becameStopped { mirror.started = false }
        }
    }

    private func perform(_ effects: [SessionCoreEffect], now: SessionTime) {
        for effect in effects {
            switch effect {
            case .openSignaling:
                socket?.close()
                let opened = transports.openSignaling(to: target, joinToken: joinToken, tls: tls, on: eventLoop) { [weak self] event in
                    self?.socketEvent(event)
                }
                socket = opened
            case .sendSignaling(let frame):
                do {
                    socket?.send(try SignalFrameCodec.encode(frame))
                } catch {
                    logger.error(msg: "could not encode a \(frame.type) frame: \(error)")
                }
            case .closeSignaling:
                socket?.close()
                socket = nil
            case .bindMediaSocket(let generation):
                bindMediaSocket(generation: generation)
            case .sendDatagram(let datagram, let target):
                mediaSocket?.socket.send(datagram, to: target)
            case .closeMediaSocket:
                mediaSocket?.socket.close(promise: nil)
                mediaSocket = nil
            case .event(let event):
                delivery.deliver(event)
            case .media(let effect):
                perform(effect, now: now)
            }
        }
    }

    /// Binds a UDP socket on this loop, on the interface that reaches the server, for the core's new media
    /// connection; a bind the core no longer waits for is closed.
    private func bindMediaSocket(generation: Int) {
        mediaSocket?.socket.close(promise: nil)
        mediaSocket = nil
        let host = socket?.localAddress?.ipAddress ?? "0.0.0.0"
        // The socket belongs to this loop, so the future completes here: no hop.
        transports.bindMedia(host: host, on: eventLoop).whenComplete { [self] result in
            switch result {
            case .failure(let error):
                logger.error(msg: "could not bind a media socket on \(host): \(error)")
                apply { $0.mediaSocketFailed(generation: generation, now: $1) }
            case .success(let bound):
                guard generation == core.mediaGeneration else {
                    bound.close(promise: nil)
                    return
                }
                mediaSocket = (bound, generation)
                bound.receiveDatagrams { [weak self] datagram, source in
                    self?.apply { $0.received(datagram: datagram, from: source, generation: generation, now: $1) }
                }
                apply { $0.mediaSocketBound(bound.localAddress, generation: generation, now: $1) }
            }
        }
    }

    /// Device work and delivery from the media side.
    private func perform(_ effect: SessionMediaEffect, now: SessionTime) {
        switch effect {
        case .openDevices(let format, let microphone, let speaker):
            devices?.output.close()
            let opened = OpenDevices(
                input: microphone ? deviceController.openInput(format: format) : SilenceAudioSource(format: format),
                output: speaker ? deviceController.openOutput(format: format) : NullAudioSink(format: format))
            devices = opened
            // What a null output is given is never heard: not decoding it makes a listening bot cost almost nothing.
            core.setAudioDecoding(!(opened.output is NullAudioSink))
            // Echo exists only between a real speaker and a real microphone; virtual devices have none to cancel.
            let cancelsEcho = Self.echoCancellationAllowed
                && opened.input is ALSACaptureSource && opened.output is ALSAPlaybackSink
            do { try core.setEchoCancellation(cancelsEcho) } catch {
                logger.error(msg: "echo cancellation is unavailable: \(error)")
            }
        case .closeDevices:
            devices?.output.close()
            devices = nil
        case .play(let frame):
            devices?.output.write(frame)
        case .videoStatistics(let statistics):
            videoStatistics.withLock { $0 = statistics }
        case .remoteVideoFrame, .remoteVideoArrived, .remoteVideoPausedAtSource, .metrics, .connectionBecamePoor,
             .connectionRecovered:
            delivery.deliver(effect, now: now)
        case .sendRTP, .sendRTCP, .videoMetrics, .clientMetric, .reconnect:
            // Carried out inside the core.
            break
        }
    }

    private func socketEvent(_ event: SignalingSocket.Event) {
        switch event {
        case .opened:
            analytics?.publishEvent(name: .videoClientSignalingOpened)
            apply { $0.signalingOpened(now: $1) }
        case .message(let bytes):
            do {
                let frame = try SignalFrameCodec.decode(bytes)
                apply { $0.signalingReceived(frame, now: $1) }
            } catch {
                logger.error(msg: "dropped an undecodable signaling message: \(error)")
            }
        case .closed(let code):
            socket = nil
            if core.signaling.isInMeeting {
                analytics?.publishEvent(name: .videoClientSignalingDropped, attributes: [
                    EventAttributeName.signalingDroppedError: code.map { "closed with code \($0)" } ?? "connection lost",
                ])
            }
            apply { $0.signalingClosed(code: code, now: $1) }
        case .tlsFailed(let reason):
            socket = nil
            logger.error(msg: "signaling TLS failed, not retrying (the join token was not sent): \(reason)")
            apply { $0.signalingFailedTLS(now: $1) }
        }
    }
}

extension SessionEngine: SessionVideoControl {
    func startSendingVideo(maxBitRateKbps: UInt32, screenContent: Bool, simulcast: Bool, highResolution: Bool) {
        eventLoop.execute {
            self.apply {
                $0.startSendingVideo(maxBitRateKbps: maxBitRateKbps, screenContent: screenContent, simulcast: simulcast,
                                     highResolution: highResolution, now: $1)
            }
        }
    }

    func stopSendingVideo() {
        eventLoop.execute { self.apply { $0.stopSendingVideo(now: $1) } }
    }

    func sendVideoFrame(_ image: I420Image, timestampNanoseconds: Int64) {
        // The one hop per frame, from the source's thread to the session's loop.
        eventLoop.execute { self.apply { $0.videoFrame(image, timestampNanoseconds: timestampNanoseconds, now: $1) } }
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
        eventLoop.execute { self.apply { $0.setRemoteVideoDecoded(decoded, videoId: videoId, now: $1) } }
    }
}
