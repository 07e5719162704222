import CarillonProtocol
import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// The `audioVideo` of a ``DefaultMeetingSession``: starts and stops the session and forwards realtime calls.
///
/// Threading: every method may be called from any thread; observers are called on the session's callback queue.
public final class DefaultAudioVideoFacade: AudioVideoFacade, @unchecked Sendable {
    /// The configuration the session was created with.
    public let configuration: MeetingSessionConfiguration
    /// The logger the session writes to.
    public let logger: any Logger
    private let observers = ObserverRegistry()
    private let callbackQueue: DispatchQueue
    private let engine: SessionEngine?
    private let setupError: (any Error)?
    /// Fed by the session's realtime events like any observer (the way Chime wires it), calling its own observers
    /// on the session's callback queue.
    private let activeSpeakerDetector: DefaultActiveSpeakerDetector
    /// The session's audio devices: virtual ones (tones, WAV files, recorders) and the machine's ALSA devices.
    public let deviceController: DefaultDeviceController

    init(configuration: MeetingSessionConfiguration, logger: any Logger, callbackQueue: DispatchQueue) {
        self.configuration = configuration
        self.logger = logger
        self.callbackQueue = callbackQueue
        // One event loop owns the session: its engine, its sockets and its active-speaker detector.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let detector = DefaultActiveSpeakerDetector(selfAttendeeId: configuration.credentials.attendeeId,
                                                    callbackQueue: callbackQueue, eventLoop: eventLoop)
        self.activeSpeakerDetector = detector
        observers.add(detector as any RealtimeObserver)
        let devices = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(),
                                              callbackQueue: callbackQueue, soundCards: { ALSASoundCards.list() })
        self.deviceController = devices
        do {
            let target = try SignalingSocket.Target(url: Self.signalingURL(configuration.urls.signalingUrl))
            self.engine = SessionEngine(
                configuration: configuration,
                target: target,
                observers: observers,
                callbackQueue: callbackQueue,
                logger: logger,
                deviceController: devices,
                eventLoop: eventLoop
            )
            self.setupError = nil
        } catch {
            self.engine = nil
            self.setupError = error
        }
    }

    /// The signaling URL with the query Chime clients add (`signaling.md` §1.1).
    static func signalingURL(_ base: String) -> String {
        base + "?X-Chime-Control-Protocol-Version=3&X-Amzn-Chime-Send-Close-On-Error=1"
            + "&X-Amzn-Version=\(CarillonVersion.current)&X-Amzn-User-Agent=carillon-\(CarillonVersion.current)"
    }

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

    /// See ``AudioVideoControllerFacade``.
    public func stop() {
        logger.info(msg: "API/DefaultAudioVideoFacade/stop")
        engine?.stop()
        activeSpeakerDetector.removeAllAttendees()
    }

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
    /// See ``DeviceController``: no cameras yet, so this does nothing.
    public func switchCamera() { deviceController.switchCamera() }
    /// See ``DeviceController``: no cameras yet, so nil.
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

    // MARK: RealtimeControllerFacade

    /// See ``RealtimeControllerFacade``.
    public func realtimeLocalMute() -> Bool { engine?.setMuted(true) ?? false }
    /// See ``RealtimeControllerFacade``.
    public func realtimeLocalUnmute() -> Bool { engine?.setMuted(false) ?? false }
    /// See ``RealtimeControllerFacade``.
    public func addRealtimeObserver(observer: any RealtimeObserver) { observers.add(observer) }
    /// See ``RealtimeControllerFacade``.
    public func removeRealtimeObserver(observer: any RealtimeObserver) { observers.remove(observer) }

    /// See ``RealtimeControllerFacade``.
    public func addRealtimeDataMessageObserver(topic: String, observer: any DataMessageObserver) {
        observers.add(observer, topic: topic)
    }

    /// See ``RealtimeControllerFacade``.
    public func removeRealtimeDataMessageObserverFromTopic(topic: String) {
        observers.removeDataMessageObservers(topic: topic)
    }

    /// See ``RealtimeControllerFacade``.
    public func realtimeSendDataMessage(topic: String, data: Any, lifetimeMs: Int32 = 0) throws {
        guard let engine, engine.isInMeeting else {
            logger.error(msg: "realtimeSendDataMessage: the session is not in a meeting")
            throw MediaError.illegalState
        }
        let bytes = try DataMessagePayload.bytes(topic: topic, data: data, lifetimeMs: lifetimeMs)
        guard engine.sendDataMessage(topic: topic, data: bytes, lifetimeMs: lifetimeMs) else { throw MediaError.illegalState }
    }
}
