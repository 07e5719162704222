import CarillonCodecs
import Foundation

/// The SDK's ``DeviceController`` on Linux: ALSA cards read from `/proc/asound`, plus the virtual devices of a
/// ``VirtualAudioDevices`` registry.
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
/// * Carillon does not capture from or play to ALSA yet: choosing an ALSA device is accepted, but the session then
///   sends silence or discards what it receives, with a warning in the log.
/// * Device changes are found by polling (the engine calls ``refreshAudioDevices()`` about every 2 s); a chosen
///   device that disappears falls back to the first listed device of its direction.
///
/// Threading: safe from any thread (a lock guards the state); observers are called by the engine on the session's
/// callback queue.
public final class DefaultDeviceController: DeviceController, @unchecked Sendable {
    /// The virtual devices listed after the real ones; register more here (the CLI does).
    public let virtualDevices: VirtualAudioDevices

    private let logger: any Logger
    private let listSoundCards: @Sendable () -> [MediaDevice]
    private let lock = NSLock()
    private var observers: [ObjectIdentifier: any DeviceChangeObserver] = [:]
    private var chosenInput: MediaDevice?
    private var chosenOutput: MediaDevice?
    private var lastChosen: MediaDevice?
    private var watcher = DeviceWatcher()
    private var reportedNoSoundCards: Bool?
    private var generation: UInt64 = 0

    /// Creates a controller listing this machine's ALSA devices and `virtualDevices`.
    public convenience init(logger: any Logger, virtualDevices: VirtualAudioDevices = VirtualAudioDevices()) {
        self.init(logger: logger, virtualDevices: virtualDevices, soundCards: { ALSASoundCards.list() })
    }

    /// Creates a controller whose real devices come from `soundCards` (tests pass fixtures).
    init(logger: any Logger, virtualDevices: VirtualAudioDevices, soundCards: @escaping @Sendable () -> [MediaDevice]) {
        self.logger = logger
        self.virtualDevices = virtualDevices
        listSoundCards = soundCards
        let initial = listAudioDevices()
        lock.withLock { _ = watcher.update(initial) }
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
            return
        }
        lock.withLock {
            if direction == .input { chosenInput = match } else { chosenOutput = match }
            lastChosen = match
            generation &+= 1
        }
        logger.info(msg: "chooseAudioDevice: \(direction == .input ? "input" : "output") is now \(match)")
        if case .alsa = match.endpoint {
            logger.error(msg: "chooseAudioDevice: Carillon does not \(direction == .input ? "capture from" : "play to") ALSA yet; \(match.label) will \(direction == .input ? "send silence" : "discard audio")")
        }
    }

    /// See ``DeviceController/addDeviceChangeObserver(observer:)``.
    public func addDeviceChangeObserver(observer: any DeviceChangeObserver) {
        lock.withLock { observers[ObjectIdentifier(observer)] = observer }
    }

    /// See ``DeviceController/removeDeviceChangeObserver(observer:)``.
    public func removeDeviceChangeObserver(observer: any DeviceChangeObserver) {
        _ = lock.withLock { observers.removeValue(forKey: ObjectIdentifier(observer)) }
    }

    /// Does nothing: Carillon has no camera capture yet.
    public func switchCamera() {}

    /// Always nil: Carillon has no camera capture yet.
    public func getActiveCamera() -> MediaDevice? { nil }

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

    /// Changes whenever a device is chosen or a chosen device disappears: the engine compares it every frame and
    /// reopens its source and sink when it moved.
    var selectionGeneration: UInt64 { lock.withLock { generation } }

    /// Opens the active input for a session in `format`; silence when there is none, when it is an ALSA device, or
    /// when it fails to open (each logged).
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
        case .alsa, .unspecified:
            logger.error(msg: "Carillon does not capture from ALSA yet: \(device) sends silence")
        }
        return SilenceAudioSource(format: format)
    }

    /// Opens the active output for a session in `format`; the null output when there is none, when it is an ALSA
    /// device, or when it fails to open (each logged).
    func openOutput(format: AudioFormat) -> any AudioOutputSink {
        guard let device = activeOutput else {
            logger.error(msg: "No audio output device: discarding received audio")
            return NullAudioSink(format: format)
        }
        switch device.endpoint {
        case .virtual:
            do { return try virtualDevices.openOutput(device, format: format) } catch {
                logger.error(msg: "Opening \(device) failed (\(error)): discarding received audio")
            }
        case .alsa, .unspecified:
            logger.error(msg: "Carillon does not play to ALSA yet: \(device) discards received audio")
        }
        return NullAudioSink(format: format)
    }

    /// Lists the devices again and, when the list changed since the previous call, returns the observers to call
    /// with the fresh list (the engine calls ``DeviceChangeObserver/audioDeviceDidChange(freshAudioDeviceList:)`` on
    /// its callback queue). A chosen device that disappeared is forgotten, so its direction falls back to the first
    /// listed device; ``selectionGeneration`` then moves.
    func refreshAudioDevices() -> (observers: [any DeviceChangeObserver], change: DeviceWatcher.Change)? {
        let devices = listAudioDevices()
        let result: (observers: [any DeviceChangeObserver], change: DeviceWatcher.Change)? = lock.withLock {
            guard let change = watcher.update(devices) else { return nil }
            for removed in change.removed {
                if chosenInput == removed { chosenInput = nil; generation &+= 1 }
                if chosenOutput == removed { chosenOutput = nil; generation &+= 1 }
                if lastChosen == removed { lastChosen = nil }
            }
            return (Array(observers.values), change)
        }
        if let change = result?.change {
            logger.info(msg: "Audio devices changed: added \(change.added.map(\.label)), removed \(change.removed.map(\.label))")
        }
        return result
    }

    private func active(_ direction: AudioDeviceEndpoint.Direction, in devices: [MediaDevice]) -> MediaDevice? {
        let chosen = lock.withLock { direction == .input ? chosenInput : chosenOutput }
        if let chosen, devices.contains(chosen) { return chosen }
        return devices.first { $0.endpoint.direction == direction }
    }
}
