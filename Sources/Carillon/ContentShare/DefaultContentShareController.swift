import Dispatch
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// The session's ``ContentShareController``: the share is a second ``SessionEngine`` (its own event loop, signaling
/// socket and peer connection) joined as `<attendeeId>#content` with the token `<joinToken>#content`, muted, with no
/// audio devices and no remote video, sending its source's frames through a ``LocalVideoSender`` without a tile. The
/// states are ``ContentShareLifecycle``'s; this class carries out its effects.
///
/// Encoding: screen content (`video.md` §1.1: screen-content mode, static threshold 100, min QP 12) unless the
/// source's hint is ``VideoContentHint/motion``; the frame rate is the source's, at most
/// ``SessionVideoCore/maximumContentFrameRate``; the server asks for a key frame every 10 s. In a meeting whose
/// content features allow UHD the cap is 2500 kbps, as in Chime.
///
/// Metrics: the share session's send metrics reach the main session's ``MetricsObserver``s renamed to the
/// `contentShare*` ``ObservableMetric`` cases, in a dictionary of their own each second; they stop when the share
/// stops.
///
/// Threading: every method may be called from any thread (a lock guards the state, never held while calling out);
/// observers are called on the session's callback queue. Made by ``DefaultAudioVideoFacade``.
public final class DefaultContentShareController: ContentShareController, @unchecked Sendable {
    private let configuration: MeetingSessionConfiguration
    private let logger: any Logger
    private let callbackQueue: DispatchQueue
    private let analytics: DefaultEventAnalyticsController
    /// The main session's observers: the content metrics go to its metrics observers.
    private let sessionObservers: ObserverRegistry
    /// The share's session; nil when the signaling URL is unusable (then every start fails at once).
    private let engine: SessionEngine?
    /// The share's sink on the shared source.
    private let sender: LocalVideoSender
    /// Receives the share session's events on the callback queue.
    private let bridge: ContentShareSessionBridge
    private let lock = NSLock()
    // Guarded by `lock`.
    private var lifecycle = ContentShareLifecycle()
    private var observers: [ObjectIdentifier: any ContentShareObserver] = [:]
    /// What the latest start asked for.
    private var requested: (source: any VideoSource, config: LocalVideoConfiguration)?

    /// Makes the controller of the session `configuration` describes; the share connects to `target` (the session's
    /// signaling URL) with `tls` for `wss://`.
    init(configuration: MeetingSessionConfiguration, target: SignalingSocket.Target?, tls: NIOSSLContext?,
         logger: any Logger, callbackQueue: DispatchQueue, analytics: DefaultEventAnalyticsController,
         sessionObservers: ObserverRegistry) {
        self.configuration = configuration
        self.logger = logger
        self.callbackQueue = callbackQueue
        self.analytics = analytics
        self.sessionObservers = sessionObservers
        let bridge = ContentShareSessionBridge()
        self.bridge = bridge
        if let target {
            let shareObservers = ObserverRegistry()
            shareObservers.add(bridge as any AudioVideoObserver)
            shareObservers.add(bridge as any MetricsObserver)
            let devices = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(),
                                                  callbackQueue: callbackQueue, soundCards: { [] })
            engine = SessionEngine(configuration: Self.contentConfiguration(configuration), target: target, tls: tls,
                                   observers: shareObservers, analytics: nil, callbackQueue: callbackQueue,
                                   logger: logger, deviceController: devices)
        } else {
            engine = nil
        }
        sender = LocalVideoSender(control: engine, tiles: nil, callbackQueue: callbackQueue, logger: logger)
        bridge.controller = self
    }

    deinit { sender.detach() }

    /// The share's configuration: the same meeting and URLs, attendee `<attendeeId>#content`, token
    /// `<joinToken>#content`, external user id `<externalUserId>#content`, no primary meeting.
    static func contentConfiguration(_ base: MeetingSessionConfiguration) -> MeetingSessionConfiguration {
        let suffix = "#" + ModalityType.content.rawValue
        let credentials = MeetingSessionCredentials(
            attendeeId: base.credentials.attendeeId + suffix, externalUserId: base.credentials.externalUserId + suffix,
            joinToken: base.credentials.joinToken + suffix)
        return MeetingSessionConfiguration(
            meetingId: base.meetingId, externalMeetingId: base.externalMeetingId, credentials: credentials,
            urls: base.urls, urlRewriter: base.urlRewriter, primaryMeetingId: nil, meetingFeatures: base.meetingFeatures)
    }

    /// Whether the share's session is in the meeting and sending.
    public var isSharing: Bool { lock.withLock { lifecycle.isSharing } }

    // MARK: ContentShareController

    /// See ``ContentShareController/startContentShare(source:)``.
    public func startContentShare(source: ContentShareSource) {
        startContentShare(source: source, config: LocalVideoConfiguration())
    }

    /// See ``ContentShareController/startContentShare(source:config:)``.
    public func startContentShare(source: ContentShareSource, config: LocalVideoConfiguration) {
        guard let video = source.videoSource else {
            logger.info(msg: "startContentShare: the source has no videoSource; nothing is shared")
            return
        }
        guard !configuration.meetingFeatures.contentMaxResolution.sameSize(as: .videoDisabled) else {
            logger.info(msg: "startContentShare: content share is disabled for this meeting (MeetingFeatures.contentMaxResolution)")
            return
        }
        logger.info(msg: "API/DefaultContentShareController/startContentShare")
        let effects = lock.withLock {
            requested = (video, config)
            return lifecycle.start()
        }
        perform(effects)
    }

    /// See ``ContentShareController/stopContentShare()``.
    public func stopContentShare() {
        logger.info(msg: "API/DefaultContentShareController/stopContentShare")
        perform(lock.withLock { lifecycle.stop() })
    }

    /// See ``ContentShareController/addContentShareObserver(observer:)``.
    public func addContentShareObserver(observer: any ContentShareObserver) {
        lock.withLock { observers[ObjectIdentifier(observer)] = observer }
    }

    /// See ``ContentShareController/removeContentShareObserver(observer:)``.
    public func removeContentShareObserver(observer: any ContentShareObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    // MARK: The share's session

    /// The share's session is in the meeting (on the callback queue).
    fileprivate func sessionStarted(reconnecting: Bool) {
        perform(lock.withLock { lifecycle.sessionStarted(reconnecting: reconnecting) })
    }

    /// The share's session stopped (on the callback queue).
    fileprivate func sessionStopped(_ code: MeetingSessionStatusCode) {
        // Reported to the observers (``ContentShareStatus/sessionStatusCode``): logged, not as an error a second time.
        if code != .ok { logger.info(msg: "content share session stopped: \(code)") }
        perform(lock.withLock { lifecycle.sessionStopped(code) })
    }

    /// The share session's metrics (on the callback queue): its send metrics, renamed, to the session's observers.
    fileprivate func sessionMetrics(_ metrics: [AnyHashable: Any]) {
        guard lock.withLock({ lifecycle.isSharing }) else { return }
        var content: [AnyHashable: Any] = [:]
        for (key, value) in metrics {
            guard let metric = key as? ObservableMetric, let renamed = Self.contentMetric(metric) else { continue }
            content[AnyHashable(renamed)] = value
        }
        guard !content.isEmpty else { return }
        sessionObservers.metricsObservers.forEach { $0.metricsDidReceive(metrics: content) }
    }

    /// The `contentShare*` name of a share session's metric; nil for metrics a share does not report.
    static func contentMetric(_ metric: ObservableMetric) -> ObservableMetric? {
        switch metric {
        case .videoSendBitrate: .contentShareVideoSendBitrate
        case .videoSendPacketLossPercent: .contentShareVideoSendPacketLossPercent
        case .videoSendFps: .contentShareVideoSendFps
        case .videoSendRttMs: .contentShareVideoSendRttMs
        default: nil
        }
    }

    /// The observers now (read on the callback queue, so an observer added before a callback is queued hears it).
    private var currentObservers: [any ContentShareObserver] { lock.withLock { Array(observers.values) } }

    private func perform(_ effects: [ContentShareLifecycle.Effect]) {
        for effect in effects {
            switch effect {
            case .publish(let name, let error):
                let attributes: [AnyHashable: Any] = error.map { [EventAttributeName.contentShareError: $0] } ?? [:]
                analytics.publishEvent(name: name, attributes: attributes)
            case .startSession:
                startSession()
            case .sendSource:
                sendSource()
            case .stopSession:
                engine?.stop()
            case .releaseSource:
                sender.stopSending()
                sender.detach()
            case .notifyStarted:
                callbackQueue.async { [self] in currentObservers.forEach { $0.contentShareDidStart() } }
            case .notifyStopped(let code, let cause):
                let status = ContentShareStatus(statusCode: code, sessionStatusCode: cause)
                callbackQueue.async { [self] in currentObservers.forEach { $0.contentShareDidStop(status: status) } }
            }
        }
    }

    /// Joins the share's session: muted, no audio devices, the usual reconnect budget.
    private func startSession() {
        guard let engine, engine.claimStart() else {
            logger.error(msg: "content share cannot start: \(engine == nil ? "the signaling URL is unusable" : "its session is still running")")
            callbackQueue.async { [weak self] in self?.sessionStopped(.audioServiceUnavailable) }
            return
        }
        engine.start(configuration: AudioVideoConfiguration(
            audioMode: .mono16K, audioDeviceCapabilities: .none, callKitEnabled: false, enableAudioRedundancy: false,
            videoMaxResolution: configuration.meetingFeatures.contentMaxResolution))
        _ = engine.setMuted(true)
    }

    /// Attaches the latest source and sends it.
    private func sendSource() {
        guard let request = lock.withLock({ requested }) else { return }
        let (source, config) = (request.source, request.config)
        let hint = sender.attach(source)
        let uhd = configuration.meetingFeatures.contentMaxResolution.sameSize(as: .videoResolutionUHD)
        let maxBitRateKbps = uhd ? VideoBitrateConstants().videoHighResolutionBitrateKbps : config.maxBitRateKbps
        engine?.startSendingVideo(maxBitRateKbps: maxBitRateKbps, screenContent: hint != .motion, simulcast: false,
                                  highResolution: false)
        sender.startSending()
    }
}

/// Hears the share session's engine on the callback queue and tells its ``DefaultContentShareController``.
private final class ContentShareSessionBridge: AudioVideoObserver, MetricsObserver, @unchecked Sendable {
    /// Set once, right after the controller is made; weak, as the controller owns the engine that holds this.
    weak var controller: DefaultContentShareController?

    func audioSessionDidStart(reconnecting: Bool) { controller?.sessionStarted(reconnecting: reconnecting) }
    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {
        controller?.sessionStopped(sessionStatus.statusCode)
    }
    func metricsDidReceive(metrics: [AnyHashable: Any]) { controller?.sessionMetrics(metrics) }
    func audioSessionDidStartConnecting(reconnecting: Bool) {}
    func audioSessionDidDrop() {}
    func audioSessionDidCancelReconnect() {}
    func connectionDidRecover() {}
    func connectionDidBecomePoor() {}
    func videoSessionDidStartConnecting() {}
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus) {}
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus) {}
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource]) {}
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource]) {}
    func cameraSendAvailabilityDidChange(available: Bool) {}
}
