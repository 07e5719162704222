import CarillonCodecs
import CarillonProtocol
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// The `audioVideo` of a ``DefaultMeetingSession``: starts and stops the session, forwards realtime calls, sends
/// local video and shows video tiles.
///
/// Video: the facade owns the session's camera (a ``DefaultCameraCaptureSource`` whose observers are called on the
/// session's callback queue), a ``DefaultVideoTileController`` which the session feeds with remote video, and the
/// sink it adds to the local source, which sends frames to the session and shows them as the local tile (id 0). See
/// ``AudioVideoControllerFacade/startLocalVideo(config:)`` and ``DefaultVideoTileController``. ``stop()`` also stops
/// local video and remote video (so both are off at the next ``start()``, as in Chime).
///
/// Threading: every method may be called from any thread; observers are called on the session's callback queue.
public final class DefaultAudioVideoFacade: AudioVideoFacade, @unchecked Sendable {
    /// The configuration the session was created with.
    public let configuration: MeetingSessionConfiguration
    /// The logger the session writes to.
    public let logger: any Logger
    let observers = ObserverRegistry()
    private let callbackQueue: DispatchQueue
    let engine: SessionEngine?
    private let setupError: (any Error)?
    /// Fed by the session's realtime events like any observer (the way Chime wires it), calling its own observers
    /// on the session's callback queue.
    private let activeSpeakerDetector: DefaultActiveSpeakerDetector
    /// The session's audio devices: virtual ones (tones, WAV files, recorders) and the machine's ALSA devices.
    public let deviceController: DefaultDeviceController
    /// Where video requests go: the engine, or a test's fake.
    private let videoControl: (any SessionVideoControl)?
    /// The session's tiles, fed by the engine (remote video) and by `localVideo` (the local tile).
    let videoTileController: DefaultVideoTileController
    /// The SDK's own camera, which `startLocalVideo()` sends.
    let camera: DefaultCameraCaptureSource
    /// The session's sink on the local video source.
    let localVideo: LocalVideoSender
    /// The session's analytics (the same object as `DefaultMeetingSession.eventAnalyticsController`).
    let analytics: DefaultEventAnalyticsController
    /// The session's content share: a second session as `<attendeeId>#content`.
    public let contentShareController: DefaultContentShareController

    convenience init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue,
                     tlsTrustRoots: TLSTrustRoots = .fromEnvironment(),
                     analytics: DefaultEventAnalyticsController? = nil) {
        self.init(configuration: configuration, logger: logger, callbackQueue: callbackQueue, videoControl: nil,
                  cameras: SystemCameras.shared, captureEventLoop: CaptureLoop.sharedEventLoop,
                  tlsTrustRoots: tlsTrustRoots, analytics: analytics)
    }

    /// Creates the facade; video requests go to `videoControl` when given (tests), else to the engine. The camera
    /// captures from `cameras` on `captureEventLoop`.
    init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue,
         videoControl: (any SessionVideoControl)?, cameras: any CameraDeviceProvider, captureEventLoop: any EventLoop,
         tlsTrustRoots: TLSTrustRoots = .fromEnvironment(), analytics: DefaultEventAnalyticsController? = nil) {
        self.configuration = configuration
        self.analytics = analytics ?? DefaultEventAnalyticsController(configuration: configuration,
                                                                      callbackQueue: callbackQueue, reporter: nil)
        self.logger = logger
        self.callbackQueue = callbackQueue
        // One event loop owns the session: its engine, its sockets and its active-speaker detector.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let detector = DefaultActiveSpeakerDetector(selfAttendeeId: configuration.credentials.attendeeId,
                                                    callbackQueue: callbackQueue, eventLoop: eventLoop)
        self.activeSpeakerDetector = detector
        let devices = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(), analytics: self.analytics,
                                              callbackQueue: callbackQueue, soundCards: { ALSASoundCards.list() })
        self.deviceController = devices
        var shareTarget: (target: SignalingSocket.Target, tls: NIOSSLContext?)?
        do {
            let target = try SignalingSocket.Target(url: Self.signalingURL(configuration.urls.signalingUrl))
            // Made once: reading the trust store per connection would cost a reconnect milliseconds of CPU.
            let tls = target.secure ? try SignalingSocket.makeTLSContext(trust: tlsTrustRoots) : nil
            shareTarget = (target, tls)
            self.engine = SessionEngine(
                configuration: configuration,
                target: target,
                tls: tls,
                observers: observers,
                analytics: self.analytics,
                callbackQueue: callbackQueue,
                logger: logger,
                deviceController: devices,
                activeSpeakerDetector: detector,
                eventLoop: eventLoop
            )
            self.setupError = nil
        } catch {
            self.engine = nil
            self.setupError = error
        }
        let control = videoControl ?? engine
        self.videoControl = control
        let tiles = DefaultVideoTileController(selfAttendeeId: configuration.credentials.attendeeId, control: control,
                                               callbackQueue: callbackQueue, logger: logger)
        videoTileController = tiles
        camera = DefaultCameraCaptureSource(logger: logger, cameras: cameras, eventLoop: captureEventLoop,
                                            callbackQueue: callbackQueue)
        devices.useCamera(camera)
        localVideo = LocalVideoSender(control: control, tiles: tiles, callbackQueue: callbackQueue, logger: logger)
        engine?.attachRemoteVideo(tiles)
        contentShareController = DefaultContentShareController(
            configuration: configuration, target: shareTarget?.target, tls: shareTarget?.tls, logger: logger,
            callbackQueue: callbackQueue, analytics: self.analytics, sessionObservers: observers)
        tiles.addVideoTileObserver(observer: VideoTileCounter(analytics: self.analytics))
    }

    deinit {
        // The local source and the session's sink hold each other: break the cycle, and stop the SDK's camera.
        localVideo.detach()
        camera.stop()
    }

    /// The signaling URL with the query Chime clients add (`signaling.md` §1.1).
    static func signalingURL(_ base: String) -> String {
        base + "?X-Chime-Control-Protocol-Version=3&X-Amzn-Chime-Send-Close-On-Error=1"
            + "&X-Amzn-Version=\(CarillonVersion.current)&X-Amzn-User-Agent=carillon-\(CarillonVersion.current)"
    }

    // MARK: EventAnalyticsFacade

    /// See ``EventAnalyticsFacade``.
    public func addEventAnalyticsObserver(observer: any EventAnalyticsObserver) {
        analytics.addEventAnalyticsObserver(observer: observer)
    }

    /// See ``EventAnalyticsFacade``.
    public func removeEventAnalyticsObserver(observer: any EventAnalyticsObserver) {
        analytics.removeEventAnalyticsObserver(observer: observer)
    }

    /// See ``EventAnalyticsFacade``.
    public func getMeetingHistory() -> [MeetingHistoryEvent] { analytics.getMeetingHistory() }

    /// See ``EventAnalyticsFacade``.
    public func getCommonEventAttributes() -> [AnyHashable: Any] { analytics.getCommonEventAttributes() }

    // MARK: AudioVideoControllerFacade

    /// See ``AudioVideoControllerFacade``.
    public func start(audioVideoConfiguration: AudioVideoConfiguration) throws {
        let urls = configuration.urls
        for url in [urls.audioHostUrl, urls.audioFallbackUrl, urls.signalingUrl]
        where url.trimmingCharacters(in: .whitespaces).isEmpty {
            logger.error(msg: "cannot start: a service URL is blank")
            throw MediaError.audioFailedToStart
        }
        guard let engine else {
            logger.error(msg: "cannot start: \(setupError.map { "\($0)" } ?? "no signaling URL")")
            throw MediaError.audioFailedToStart
        }
        guard engine.claimStart() else { throw MediaError.illegalState }
        logger.info(msg: "API/DefaultAudioVideoFacade/start \(audioVideoConfiguration)")
        engine.start(configuration: audioVideoConfiguration)
    }

    /// See ``AudioVideoControllerFacade``.
    public func start(callKitEnabled: Bool = false) throws {
        try start(audioVideoConfiguration: AudioVideoConfiguration(callKitEnabled: callKitEnabled))
    }

    /// See ``AudioVideoControllerFacade``.
    public func start() throws { try start(audioVideoConfiguration: AudioVideoConfiguration()) }

    /// See ``AudioVideoControllerFacade``; also stops local video (and the SDK's camera) and remote video.
    public func stop() {
        logger.info(msg: "API/DefaultAudioVideoFacade/stop")
        engine?.stop()
        activeSpeakerDetector.removeAllAttendees()
        endLocalVideo()
        videoControl?.setReceivingVideo(false)
    }

    // MARK: Video

    /// See ``AudioVideoControllerFacade/startLocalVideo()``.
    public func startLocalVideo() throws(PermissionError) {
        try startLocalVideo(config: LocalVideoConfiguration())
    }

    /// See ``AudioVideoControllerFacade/startLocalVideo(config:)``.
    public func startLocalVideo(config: LocalVideoConfiguration) throws(PermissionError) {
        guard videoAllowed("startLocalVideo") else { return }
        guard camera.hasCamera else {
            logger.error(msg: "startLocalVideo: no camera is available (MediaDevice.listVideoDevices() is empty)")
            throw .videoPermissionError
        }
        logger.info(msg: "API/DefaultAudioVideoFacade/startLocalVideo with the SDK's camera")
        let hint = localVideo.attach(camera)
        deviceController.setCameraInUse(true)
        startSending(config: config, hint: hint)
        camera.start()
    }

    /// See ``AudioVideoControllerFacade/startLocalVideo(source:)``.
    public func startLocalVideo(source: any VideoSource) {
        startLocalVideo(source: source, config: LocalVideoConfiguration())
    }

    /// See ``AudioVideoControllerFacade/startLocalVideo(source:config:)``.
    public func startLocalVideo(source: any VideoSource, config: LocalVideoConfiguration) {
        guard videoAllowed("startLocalVideo(source:)") else { return }
        logger.info(msg: "API/DefaultAudioVideoFacade/startLocalVideo with a custom source")
        stopCameraIfInUse()
        let hint = localVideo.attach(source)
        startSending(config: config, hint: hint)
    }

    /// See ``AudioVideoControllerFacade/stopLocalVideo()``.
    public func stopLocalVideo() {
        logger.info(msg: "API/DefaultAudioVideoFacade/stopLocalVideo")
        endLocalVideo()
    }

    /// See ``AudioVideoControllerFacade/startRemoteVideo()``.
    public func startRemoteVideo() {
        logger.info(msg: "API/DefaultAudioVideoFacade/startRemoteVideo")
        videoControl?.setReceivingVideo(true)
    }

    /// See ``AudioVideoControllerFacade/stopRemoteVideo()``.
    public func stopRemoteVideo() {
        logger.info(msg: "API/DefaultAudioVideoFacade/stopRemoteVideo")
        videoControl?.setReceivingVideo(false)
    }

    /// The received remote videos' counters as of the last second (a Carillon addition; empty before the session
    /// receives video). Safe from any thread.
    public func remoteVideoStatistics() -> [RemoteVideoStatistics] {
        engine?.remoteVideoStatistics ?? []
    }

    /// See ``AudioVideoControllerFacade/updateVideoSourceSubscriptions(addedOrUpdated:removed:)``. Keys are the
    /// `RemoteVideoSource` objects the observer was handed (matched by their attendee id). From the first call on,
    /// exactly the subscribed videos are received; until then every video is (up to 25 cameras). Sources that become
    /// unavailable are unsubscribed. The priority and target resolution go to the server (SUBSCRIBE
    /// `video_subscription_configuration`), which in server-side adaptation lowers and pauses the least important
    /// videos first when the downlink is short. A call before `start()` takes effect when the session starts. Safe from
    /// any thread; one hop onto the session's event loop.
    public func updateVideoSourceSubscriptions(addedOrUpdated: [RemoteVideoSource: VideoSubscriptionConfiguration],
                                               removed: [RemoteVideoSource]) {
        logger.info(msg: "API/DefaultAudioVideoFacade/updateVideoSourceSubscriptions")
        guard let videoControl else { return }
        var preferences: [String: SessionMediaPlan.ReceivePreference] = [:]
        for (source, configuration) in addedOrUpdated { preferences[source.attendeeId] = configuration.receivePreference }
        videoControl.updateVideoSubscriptions(addedOrUpdated: preferences, removed: removed.map(\.attendeeId))
    }

    /// False (logged) when the meeting's features disable video.
    private func videoAllowed(_ call: String) -> Bool {
        guard configuration.meetingFeatures.videoMaxResolution.sameSize(as: .videoDisabled) else { return true }
        logger.info(msg: "\(call): video is disabled for this meeting (MeetingFeatures.videoMaxResolution); nothing is sent")
        return false
    }

    /// Tells the session to send, with Chime's bitrate rule, and opens the sink's gate.
    private func startSending(config: LocalVideoConfiguration, hint: VideoContentHint) {
        let fhd = configuration.meetingFeatures.videoMaxResolution.sameSize(as: .videoResolutionFHD)
        let maxBitRateKbps = fhd ? VideoBitrateConstants().videoHighResolutionBitrateKbps : config.maxBitRateKbps
        videoControl?.startSendingVideo(maxBitRateKbps: maxBitRateKbps, screenContent: hint.isScreenContent,
                                        simulcast: config.simulcastEnabled && !hint.isScreenContent,
                                        highResolution: fhd)
        localVideo.startSending()
    }

    /// Stops sending (the local tile goes) and the SDK's camera if in use.
    private func endLocalVideo() {
        localVideo.stopSending()
        videoControl?.stopSendingVideo()
        stopCameraIfInUse()
    }

    private func stopCameraIfInUse() {
        guard deviceController.isCameraInUse else { return }
        camera.stop()
        deviceController.setCameraInUse(false)
    }

    // MARK: ContentShareController

    /// See ``ContentShareController/startContentShare(source:)``.
    public func startContentShare(source: ContentShareSource) {
        contentShareController.startContentShare(source: source)
    }

    /// See ``ContentShareController/startContentShare(source:config:)``.
    public func startContentShare(source: ContentShareSource, config: LocalVideoConfiguration) {
        contentShareController.startContentShare(source: source, config: config)
    }

    /// See ``ContentShareController/stopContentShare()``. As in Chime, ``stop()`` does not stop a share.
    public func stopContentShare() { contentShareController.stopContentShare() }

    /// See ``ContentShareController/addContentShareObserver(observer:)``.
    public func addContentShareObserver(observer: any ContentShareObserver) {
        contentShareController.addContentShareObserver(observer: observer)
    }

    /// See ``ContentShareController/removeContentShareObserver(observer:)``.
    public func removeContentShareObserver(observer: any ContentShareObserver) {
        contentShareController.removeContentShareObserver(observer: observer)
    }

    // MARK: VideoTileControllerFacade

    /// See ``VideoTileControllerFacade/bindVideoView(videoView:tileId:)``.
    public func bindVideoView(videoView: any VideoRenderView, tileId: Int) {
        videoTileController.bindVideoView(videoView: videoView, tileId: tileId)
    }

    /// See ``VideoTileControllerFacade/unbindVideoView(tileId:)``.
    public func unbindVideoView(tileId: Int) { videoTileController.unbindVideoView(tileId: tileId) }

    /// See ``VideoTileControllerFacade/addVideoTileObserver(observer:)``.
    public func addVideoTileObserver(observer: any VideoTileObserver) {
        videoTileController.addVideoTileObserver(observer: observer)
    }

    /// See ``VideoTileControllerFacade/removeVideoTileObserver(observer:)``.
    public func removeVideoTileObserver(observer: any VideoTileObserver) {
        videoTileController.removeVideoTileObserver(observer: observer)
    }

    /// See ``VideoTileControllerFacade/pauseRemoteVideoTile(tileId:)``.
    public func pauseRemoteVideoTile(tileId: Int) { videoTileController.pauseRemoteVideoTile(tileId: tileId) }

    /// See ``VideoTileControllerFacade/resumeRemoteVideoTile(tileId:)``.
    public func resumeRemoteVideoTile(tileId: Int) { videoTileController.resumeRemoteVideoTile(tileId: tileId) }

    /// See ``DeviceController``: the virtual devices and the machine's ALSA devices.
    public func listAudioDevices() -> [MediaDevice] { deviceController.listAudioDevices() }
    /// See ``DeviceController``; a running session switches at its next 20 ms frame.
    public func chooseAudioDevice(mediaDevice: MediaDevice) { deviceController.chooseAudioDevice(mediaDevice: mediaDevice) }
    /// See ``DeviceController``.
    public func getActiveAudioDevice() -> MediaDevice? { deviceController.getActiveAudioDevice() }
    /// See ``DeviceController``.
    public func addDeviceChangeObserver(observer: any DeviceChangeObserver) {
        deviceController.addDeviceChangeObserver(observer: observer)
    }
    /// See ``DeviceController``.
    public func removeDeviceChangeObserver(observer: any DeviceChangeObserver) {
        deviceController.removeDeviceChangeObserver(observer: observer)
    }
    /// See ``DeviceController/switchCamera()``: acts on the session's camera.
    public func switchCamera() { deviceController.switchCamera() }
    /// See ``DeviceController/getActiveCamera()``: the session's camera while it is the local source.
    public func getActiveCamera() -> MediaDevice? { deviceController.getActiveCamera() }

    /// See ``ActiveSpeakerDetectorFacade``.
    public func addActiveSpeakerObserver(policy: any ActiveSpeakerPolicy, observer: any ActiveSpeakerObserver) {
        activeSpeakerDetector.addActiveSpeakerObserver(policy: policy, observer: observer)
    }

    /// See ``ActiveSpeakerDetectorFacade``.
    public func removeActiveSpeakerObserver(observer: any ActiveSpeakerObserver) {
        activeSpeakerDetector.removeActiveSpeakerObserver(observer: observer)
    }

    /// See ``AudioVideoControllerFacade``.
    public func addAudioVideoObserver(observer: any AudioVideoObserver) { observers.add(observer) }
    /// See ``AudioVideoControllerFacade``.
    public func removeAudioVideoObserver(observer: any AudioVideoObserver) { observers.remove(observer) }

    /// See ``AudioVideoControllerFacade``.
    public func addMetricsObserver(observer: any MetricsObserver) { observers.add(observer) }

    /// See ``AudioVideoControllerFacade``.
    public func removeMetricsObserver(observer: any MetricsObserver) { observers.remove(observer) }
}
