import CarillonCodecs
import Dispatch
import Foundation

/// The SDK's ``DeviceController`` on Linux: ALSA cards read from `/proc/asound`, plus the virtual devices of a
/// ``VirtualAudioDevices`` registry; and the camera of the session's own camera capture (see ``switchCamera()``).
///
/// The iOS class is driven by `AVAudioSession` routes and takes `init(audioSession:videoClientController:
/// eventAnalyticsController:logger:)`; none of those exist here, so it takes the registry and a logger instead.
/// Differences from iOS:
///
/// * The list holds inputs and outputs: real ones first (capture devices, then playback devices; types as
///   ``ALSASoundCards`` documents), then the virtual ones. Without sound cards (containers, CI) the list is the
///   virtual devices alone, and one log line says so.
/// * Choosing an input sets the session's microphone, choosing an output its speaker; the other direction keeps its
///   choice. Until something is chosen, the first listed input and output are used. A device made by the app with
///   `MediaDevice(label:type:)` selects the listed device with the same label and type; one not listed is rejected
///   with an error log, changing nothing. No analytics events are published.
/// * An ALSA device is opened as `plughw:<card>,<device>` (ALSA's plug layer converts the session's format to the
///   card's), without blocking the session. One that cannot be opened (busy, gone) sends silence or discards audio,
///   with an error in the log.
/// * Device changes are found by polling `/proc/asound` every 2 s, while the controller has observers or has an ALSA
///   device open. When the active input or output changes (a device appeared first in the list, or the one in use
///   disappeared; a chosen device that disappears is forgotten, so its direction falls back to the first listed
///   device), the session reopens its devices.
///
/// Threading: safe from any thread (a lock guards the state); observers are called asynchronously on the session's
/// callback queue (for a controller made with the public initializer, on a serial queue of its own).
public final class DefaultDeviceController: DeviceController, @unchecked Sendable {
    /// The virtual devices listed after the real ones; register more here (the CLI does).
    public let virtualDevices: VirtualAudioDevices

    private let logger: any Logger
    /// Where `audioInputSelected` and `audioInputFailed` go (the session's analytics), if anywhere.
    private let analytics: (any EventAnalyticsController)?
    private let listSoundCards: @Sendable () -> [MediaDevice]
    private let callbackQueue: DispatchQueue
    private let pollInterval: DispatchTimeInterval
    private let pollQueue = DispatchQueue(label: "carillon.device-controller.poll")
    /// Held across a whole refresh, so two refreshes cannot record their listings, or notify, out of order.
    private let refreshLock = NSLock()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var observers: [ObjectIdentifier: any DeviceChangeObserver] = [:]
    private var chosenInput: MediaDevice?
    private var chosenOutput: MediaDevice?
    private var lastChosen: MediaDevice?
    private var watcher = DeviceWatcher()
    private var listing: [MediaDevice] = []
    private var reportedNoSoundCards: Bool?
    private var generation: UInt64 = 0
    private var selectionChangeHandler: (@Sendable () -> Void)?
    private var pollTimer: (any DispatchSourceTimer)?
    private weak var openCapture: ALSACaptureSource?
    private weak var openPlayback: ALSAPlaybackSink?
    private var camera: DefaultCameraCaptureSource?
    private var cameraInUse = true

    /// Observers and the list they are told about, handed to the callback queue; the observers are app objects,
    /// touched there only, as every observer of the session is.
    private struct Delivery: @unchecked Sendable {
        let observers: [any DeviceChangeObserver]
        let devices: [MediaDevice]
    }

    /// Creates a controller listing this machine's ALSA devices and `virtualDevices`; observers are called on a
    /// serial queue of its own.
    /// `eventAnalyticsController`, when given, gets `audioInputSelected` (meeting history and reporter only) for
    /// each choice and `audioInputFailed` for a device that is not available, as Chime's controller publishes them.
    public convenience init(logger: any Logger, virtualDevices: VirtualAudioDevices = VirtualAudioDevices(),
                            eventAnalyticsController: (any EventAnalyticsController)? = nil) {
        self.init(logger: logger, virtualDevices: virtualDevices, analytics: eventAnalyticsController,
                  soundCards: { ALSASoundCards.list() })
    }

    /// Creates a controller whose real devices come from `soundCards` (tests pass fixtures), calling observers on
    /// `callbackQueue` and listing devices every `pollInterval` while it polls.
    init(logger: any Logger, virtualDevices: VirtualAudioDevices, analytics: (any EventAnalyticsController)? = nil,
         callbackQueue: DispatchQueue = DispatchQueue(label: "carillon.device-controller.callbacks"),
         pollInterval: DispatchTimeInterval = .seconds(2),
         soundCards: @escaping @Sendable () -> [MediaDevice]) {
        self.logger = logger
        self.analytics = analytics
        self.virtualDevices = virtualDevices
        self.callbackQueue = callbackQueue
        self.pollInterval = pollInterval
        listSoundCards = soundCards
        let initial = listAudioDevices()
        lock.withLock {
            _ = watcher.update(initial)
            listing = initial
        }
    }

    deinit {
        // The timer holds the controller weakly; without this it would go on firing into nothing.
        pollTimer?.cancel()
    }

    // MARK: DeviceController

    /// See ``DeviceController/listAudioDevices()``.
    public func listAudioDevices() -> [MediaDevice] {
        let real = listSoundCards()
        let none = real.isEmpty
        let report = lock.withLock {
            defer { reportedNoSoundCards = none }
            return reportedNoSoundCards != none
        }
        if report && none {
            logger.info(msg: "No ALSA sound cards in /proc/asound: only virtual audio devices are available")
        }
        let inputs = real.filter { $0.endpoint.direction == .input }
        let outputs = real.filter { $0.endpoint.direction == .output }
        return inputs + outputs + virtualDevices.devices
    }

    /// See ``DeviceController/chooseAudioDevice(mediaDevice:)``.
    public func chooseAudioDevice(mediaDevice: MediaDevice) {
        let devices = listAudioDevices()
        let match = mediaDevice.endpoint == .unspecified
            ? devices.first { $0.label == mediaDevice.label && $0.type == mediaDevice.type }
            : devices.first { $0 == mediaDevice }
        guard let match, let direction = match.endpoint.direction else {
            logger.error(msg: "chooseAudioDevice: \(mediaDevice) is not an available audio device; the selection is unchanged")
            analytics?.publishEvent(name: .audioInputFailed,
                                    attributes: [EventAttributeName.audioInputError: "\(mediaDevice) is not available"])
            return
        }
        let notify = lock.withLock {
            if direction == .input { chosenInput = match } else { chosenOutput = match }
            lastChosen = match
            generation &+= 1
            return selectionChangeHandler
        }
        notify?()
        logger.info(msg: "chooseAudioDevice: \(direction == .input ? "input" : "output") is now \(match)")
        analytics?.publishEvent(name: .audioInputSelected, attributes: [EventAttributeName.audioDeviceType: "\(match.type)"],
                                notifyObservers: false)
    }

    /// See ``DeviceController/addDeviceChangeObserver(observer:)``. The first observer starts the polling.
    public func addDeviceChangeObserver(observer: any DeviceChangeObserver) {
        lock.withLock { observers[ObjectIdentifier(observer)] = observer }
        updatePolling()
    }

    /// See ``DeviceController/removeDeviceChangeObserver(observer:)``. A removed observer is not called again, even
    /// for a change found before its removal; the last one stops the polling (unless an ALSA device is open).
    public func removeDeviceChangeObserver(observer: any DeviceChangeObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
        updatePolling()
    }

    /// Moves the session's own camera (the one `startLocalVideo()` sends) to the next listed camera, as
    /// ``DefaultCameraCaptureSource/switchCamera()`` does; restarts its capture if it runs. Does nothing while local
    /// video comes from an app's source (`startLocalVideo(source:)`), after `stopLocalVideo()`, and for a controller
    /// made with the public initializer, which serves no session.
    public func switchCamera() {
        guard let camera = lock.withLock({ cameraInUse ? camera : nil }) else {
            logger.info(msg: "switchCamera: the session's camera is not in use; nothing to switch")
            return
        }
        camera.switchCamera()
    }

    /// The camera of the session's own camera capture: its device from the session's creation until local video comes
    /// from an app's source or stops (as in the Chime SDK, whose flag for "the SDK's camera is in use" starts true),
    /// and again after `startLocalVideo()`. Nil otherwise, and for a controller made with the public initializer.
    public func getActiveCamera() -> MediaDevice? {
        lock.withLock { cameraInUse ? camera : nil }?.device
    }

    /// See ``DeviceController/getActiveAudioDevice()``: the device chosen last while it is still listed, else the
    /// active input, else the active output.
    public func getActiveAudioDevice() -> MediaDevice? {
        let devices = listAudioDevices()
        let last = lock.withLock { lastChosen }
        if let last, devices.contains(last) { return last }
        return active(.input, in: devices) ?? active(.output, in: devices)
    }

    // MARK: For the session engine

    /// The microphone the session uses now.
    var activeInput: MediaDevice? { active(.input, in: listAudioDevices()) }

    /// The speaker the session uses now.
    var activeOutput: MediaDevice? { active(.output, in: listAudioDevices()) }

    /// Changes whenever a device is chosen or a refresh finds that the active input or output changed.
    var selectionGeneration: UInt64 { lock.withLock { generation } }

    /// Sets what is called whenever ``selectionGeneration`` moves (nil: nothing), on the thread that made the change
    /// and outside the controller's lock. The session passes a hop to its event loop, where it reopens its devices:
    /// the change comes to the session once, instead of every 20 ms frame asking the controller (and taking its
    /// lock). One handler: the controller serves one session.
    func setSelectionChangeHandler(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { selectionChangeHandler = handler }
    }

    /// Makes `camera` the session's own camera, which ``switchCamera()`` and ``getActiveCamera()`` act on; the facade
    /// calls it once, at its creation.
    func useCamera(_ camera: DefaultCameraCaptureSource) {
        lock.withLock { self.camera = camera }
    }

    /// Whether the session's own camera is the local video source (see ``setCameraInUse(_:)``).
    var isCameraInUse: Bool { lock.withLock { cameraInUse } }

    /// Tells whether the session's own camera is the local video source (true until an app's source replaces it or
    /// local video stops; true again after `startLocalVideo()`).
    func setCameraInUse(_ inUse: Bool) {
        lock.withLock { cameraInUse = inUse }
    }

    /// Whether the controller is polling for device changes now.
    var isPolling: Bool { lock.withLock { pollTimer != nil } }

    /// Opens the active input for a session in `format`; silence when there is none or when it fails to open (each
    /// logged). The controller serves one session, which replaces its input with what this returns: an ALSA input
    /// opened before is closed first, so that reopening the same card finds it free.
    func openInput(format: AudioFormat) -> any AudioInputSource {
        guard let device = activeInput else {
            logger.error(msg: "No audio input device: sending silence")
            return SilenceAudioSource(format: format)
        }
        switch device.endpoint {
        case .virtual:
            do { return try virtualDevices.openInput(device, format: format) } catch {
                logger.error(msg: "Opening \(device) failed (\(error)): sending silence")
            }
        case .alsa(let card, let pcm, _):
            lock.withLock { openCapture }?.close()
            do {
                let source = try ALSACaptureSource(pcmName: AudioDeviceEndpoint.alsaPCMName(card: card, device: pcm),
                                                   format: format, logger: logger)
                lock.withLock { openCapture = source }
                updatePolling()
                return source
            } catch {
                logger.error(msg: "Opening \(device) failed (\(error)): sending silence")
            }
        case .unspecified, .virtualCamera, .v4l2Camera:
            logger.error(msg: "\(device) is bound to no audio device: sending silence")
        }
        return SilenceAudioSource(format: format)
    }

    /// Opens the active output for a session in `format`; the null output when there is none or when it fails to
    /// open (each logged). An ALSA output opened before is closed first, as for ``openInput(format:)``.
    func openOutput(format: AudioFormat) -> any AudioOutputSink {
        guard let device = activeOutput else {
            logger.error(msg: "No audio output device: discarding received audio")
            return NullAudioSink(format: format)
        }
        switch device.endpoint {
        case .virtual:
            do { return try virtualDevices.openOutput(device, format: format, logger: logger) } catch {
                logger.error(msg: "Opening \(device) failed (\(error)): discarding received audio")
            }
        case .alsa(let card, let pcm, _):
            lock.withLock { openPlayback }?.close()
            do {
                let sink = try ALSAPlaybackSink(pcmName: AudioDeviceEndpoint.alsaPCMName(card: card, device: pcm),
                                                format: format, logger: logger)
                lock.withLock { openPlayback = sink }
                updatePolling()
                return sink
            } catch {
                logger.error(msg: "Opening \(device) failed (\(error)): discarding received audio")
            }
        case .unspecified, .virtualCamera, .v4l2Camera:
            logger.error(msg: "\(device) is bound to no audio device: discarding received audio")
        }
        return NullAudioSink(format: format)
    }

    /// Lists the devices again and, when the list changed since the previous refresh, returns the change and calls
    /// every observer's ``DeviceChangeObserver/audioDeviceDidChange(freshAudioDeviceList:)`` asynchronously on the
    /// callback queue. A chosen device that disappeared is forgotten, so its direction falls back to the first listed
    /// device; ``selectionGeneration`` moves (and the selection-change handler is called) when the active input or
    /// output changed. The poll timer calls this; so may anyone.
    @discardableResult
    func refreshAudioDevices() -> DeviceWatcher.Change? {
        refreshLock.withLock {
            let devices = listAudioDevices()
            let found: (change: DeviceWatcher.Change, observers: [any DeviceChangeObserver], notify: (@Sendable () -> Void)?)? = lock.withLock {
                guard let change = watcher.update(devices) else { return nil }
                let before = (input: resolved(.input, in: listing), output: resolved(.output, in: listing))
                for removed in change.removed {
                    if chosenInput == removed { chosenInput = nil }
                    if chosenOutput == removed { chosenOutput = nil }
                    if lastChosen == removed { lastChosen = nil }
                }
                listing = devices
                let moved = resolved(.input, in: devices) != before.input || resolved(.output, in: devices) != before.output
                if moved { generation &+= 1 }
                return (change, Array(observers.values), moved ? selectionChangeHandler : nil)
            }
            guard let found else { return nil }
            found.notify?()
            logger.info(msg: "Audio devices changed: added \(found.change.added.map(\.label)), removed \(found.change.removed.map(\.label))")
            if !found.observers.isEmpty {
                let delivery = Delivery(observers: found.observers, devices: devices)
                callbackQueue.async { [weak self] in self?.deliver(delivery) }
            }
            return found.change
        }
    }

    // MARK: Private

    private func deliver(_ delivery: Delivery) {
        for observer in delivery.observers {
            // Checked here, not when the change was found, so that removing an observer stops its calls at once.
            let current = lock.withLock { observers[ObjectIdentifier(observer)] }
            guard let current, current === observer else { continue }
            observer.audioDeviceDidChange(freshAudioDeviceList: delivery.devices)
        }
    }

    /// Starts or stops the poll timer: it runs while someone is told about changes, or while an ALSA device is open
    /// (its disappearance must move the session to another device).
    private func updatePolling() {
        lock.withLock {
            let wanted = !observers.isEmpty || openCapture != nil || openPlayback != nil
            if wanted, pollTimer == nil {
                let timer = DispatchSource.makeTimerSource(queue: pollQueue)
                timer.schedule(deadline: .now() + pollInterval, repeating: pollInterval)
                // Weak: the controller owns the timer, not the other way round.
                timer.setEventHandler { [weak self] in self?.poll() }
                timer.resume()
                pollTimer = timer
            } else if !wanted, let timer = pollTimer {
                timer.cancel()
                pollTimer = nil
            }
        }
    }

    private func poll() {
        refreshAudioDevices()
        // A session that released its ALSA devices leaves nothing to watch for.
        updatePolling()
    }

    private func active(_ direction: AudioDeviceEndpoint.Direction, in devices: [MediaDevice]) -> MediaDevice? {
        lock.withLock { resolved(direction, in: devices) }
    }

    /// The chosen device of `direction` if `devices` lists it, else the first listed one. Call with `lock` held.
    private func resolved(_ direction: AudioDeviceEndpoint.Direction, in devices: [MediaDevice]) -> MediaDevice? {
        let chosen = direction == .input ? chosenInput : chosenOutput
        if let chosen, devices.contains(chosen) { return chosen }
        return devices.first { $0.endpoint.direction == direction }
    }
}
