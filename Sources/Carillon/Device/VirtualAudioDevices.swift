import CarillonCodecs
import Foundation

/// The registry of virtual audio devices: microphones and speakers made of software, for bots, tests and headless
/// attendees. Each is a ``MediaDevice`` the app lists and chooses like a real one.
///
/// A new registry holds three: `Silence` (input), `Tone 440 Hz` (input) and `Null output` (output). Code adds more,
/// for example from command-line options, with the `add...` methods or ``add(specification:)``:
///
/// | specification | device |
/// |---|---|
/// | `tone` or `tone:<Hz>` | input: a sine tone (amplitude 0.25, about -15 dBov) forever |
/// | `silence` | input: digital silence |
/// | `wav:<path>` | input: the file once, then silence |
/// | `wav-loop:<path>` | input: the file over and over |
/// | `record:<path>` | output: a WAV recording, in the session's format, of everything the session plays (one file across reconnects) |
/// | `null` | output: discards the audio |
///
/// Apps can register their own sources and sinks with ``addInput(label:type:open:)`` and
/// ``addOutput(label:type:open:)``. Inputs are converted to the session's format (WAV files are resampled and
/// down- or upmixed as they play). Adding a device that is already registered returns the existing one. Virtual
/// devices have type ``MediaDeviceType/other``.
///
/// Threading: safe from any thread (a lock guards the list); the sources and sinks it opens belong to the caller.
public final class VirtualAudioDevices: @unchecked Sendable {
    /// How a registered device is opened for a session format.
    enum Opener: Sendable {
        case input(@Sendable (AudioFormat) throws -> any AudioInputSource)
        /// Given the session's format and the logger of the device controller opening it.
        case output(@Sendable (AudioFormat, (any Logger)?) throws -> any AudioOutputSink)
    }

    private struct Entry {
        let device: MediaDevice
        let opener: Opener
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var customCount = 0

    /// The tone amplitude of `tone` devices: a quarter of full scale, loud enough to be a clear speaker.
    public static let toneAmplitude = 0.25

    /// Creates a registry holding the silence and 440 Hz tone inputs and the null output, or nothing when
    /// `includingDefaults` is false.
    public init(includingDefaults: Bool = true) {
        guard includingDefaults else { return }
        addSilence()
        _ = try? addTone(frequency: 440)
        addNullOutput()
    }

    /// Every registered device, inputs and outputs, in registration order.
    public var devices: [MediaDevice] { lock.withLock { entries.map(\.device) } }

    /// Registers a sine tone input of `frequency` Hz (1-20 000).
    @discardableResult
    public func addTone(frequency: Double) throws(VirtualAudioDeviceError) -> MediaDevice {
        guard frequency >= 1, frequency <= 20_000 else { throw .invalidFrequency(frequency) }
        let text = frequency == frequency.rounded() ? String(Int(frequency)) : String(frequency)
        return add(label: "Tone \(text) Hz", key: "tone:\(text)", type: .other, opener: .input { format in
            ToneAudioSource(frequency: frequency, amplitude: Self.toneAmplitude, format: format)
        })
    }

    /// Registers the silent input.
    @discardableResult
    public func addSilence() -> MediaDevice {
        add(label: "Silence", key: "silence", type: .other, opener: .input { SilenceAudioSource(format: $0) })
    }

    /// Registers an input playing the WAV file at `path` (16-bit PCM, any rate and channel count): once and then
    /// silence, or over and over when `loops`. The file is read now, so a bad path fails here rather than at join.
    @discardableResult
    public func addWAVFile(path: String, loops: Bool) throws(VirtualAudioDeviceError) -> MediaDevice {
        let key = "\(loops ? "wav-loop" : "wav"):\(path)"
        if let existing = lock.withLock({ entries.first { $0.device.endpoint == .virtual(key: key, direction: .input) } }) {
            return existing.device
        }
        let contents: WAVFileContents
        do { contents = try WAVFileContents(path: path) } catch { throw .file(error) }
        return add(label: "WAV file \(path)\(loops ? " (looping)" : "")", key: key, type: .other, opener: .input { format in
            do throws(AudioFrameError) { return try WAVFileAudioSource(contents: contents, loops: loops, format: format) } catch {
                throw VirtualAudioDeviceError.unsupportedFormat(error)
            }
        })
    }

    /// Registers an output recording what the session plays into a WAV file at `path`, in the session's format. The
    /// file is created (or truncated) when a session first opens the device; each later opening (a reconnect, the
    /// device chosen again) appends to it, after silence as long as the output was closed (see ``WAVRecording``).
    /// The header's sizes are rewritten with every frame, so the file is a valid WAV even after the process is killed.
    @discardableResult
    public func addRecorder(path: String) -> MediaDevice {
        let recording = WAVRecording(path: path)
        return add(label: "WAV recorder \(path)", key: "record:\(path)", type: .other, opener: .output { format, logger in
            do throws(WAVError) { return try recording.open(format: format, logger: logger) } catch {
                throw VirtualAudioDeviceError.file(error)
            }
        })
    }

    /// Registers the output that discards audio.
    @discardableResult
    public func addNullOutput() -> MediaDevice {
        add(label: "Null output", key: "null", type: .other, opener: .output { format, _ in NullAudioSink(format: format) })
    }

    /// Registers an app-made input: `open` is called with the session's format each time a session starts using it,
    /// and must return a source producing that format.
    @discardableResult
    public func addInput(label: String, type: MediaDeviceType = .other,
                         open: @escaping @Sendable (AudioFormat) throws -> any AudioInputSource) -> MediaDevice {
        add(label: label, key: nextCustomKey(), type: type, opener: .input(open))
    }

    /// Registers an app-made output: `open` is called with the session's format each time a session starts using
    /// it.
    @discardableResult
    public func addOutput(label: String, type: MediaDeviceType = .other,
                          open: @escaping @Sendable (AudioFormat) throws -> any AudioOutputSink) -> MediaDevice {
        add(label: label, key: nextCustomKey(), type: type, opener: .output { format, _ in try open(format) })
    }

    /// Registers the device a specification names (see the table on the type), as the CLI's `--input` and
    /// `--output` options do.
    @discardableResult
    public func add(specification: String) throws(VirtualAudioDeviceError) -> MediaDevice {
        let (kind, argument) = Self.split(specification)
        switch (kind, argument) {
        case ("tone", nil): return try addTone(frequency: 440)
        case ("tone", let value?):
            guard let frequency = Double(value), frequency.isFinite else { throw .invalidSpecification(specification) }
            return try addTone(frequency: frequency)
        case ("silence", nil): return addSilence()
        case ("null", nil): return addNullOutput()
        case ("wav", let path?) where !path.isEmpty: return try addWAVFile(path: path, loops: false)
        case ("wav-loop", let path?) where !path.isEmpty: return try addWAVFile(path: path, loops: true)
        case ("record", let path?) where !path.isEmpty: return addRecorder(path: path)
        default: throw .invalidSpecification(specification)
        }
    }

    /// Removes a device; sessions already using it keep their open source or sink.
    public func remove(_ device: MediaDevice) {
        lock.withLock { entries.removeAll { $0.device == device } }
    }

    // MARK: Opening (for the session engine)

    /// Opens a registered input for a session in `format`.
    func openInput(_ device: MediaDevice, format: AudioFormat) throws(VirtualAudioDeviceError) -> any AudioInputSource {
        guard case .input(let open) = try opener(for: device) else { throw .wrongDirection(device.label) }
        return try Self.run { try open(format) }
    }

    /// Opens a registered output for a session in `format`; `logger` hears what the output has to say (a recording's
    /// gap).
    func openOutput(_ device: MediaDevice, format: AudioFormat,
                    logger: (any Logger)? = nil) throws(VirtualAudioDeviceError) -> any AudioOutputSink {
        guard case .output(let open) = try opener(for: device) else { throw .wrongDirection(device.label) }
        return try Self.run { try open(format, logger) }
    }

    private func opener(for device: MediaDevice) throws(VirtualAudioDeviceError) -> Opener {
        guard let entry = lock.withLock({ entries.first { $0.device == device } }) else {
            throw .unknownDevice(device.label)
        }
        return entry.opener
    }

    private static func run<T>(_ body: () throws -> T) throws(VirtualAudioDeviceError) -> T {
        do { return try body() } catch let error as VirtualAudioDeviceError { throw error } catch {
            throw .openFailed(String(describing: error))
        }
    }

    private func add(label: String, key: String, type: MediaDeviceType, opener: Opener) -> MediaDevice {
        let direction: AudioDeviceEndpoint.Direction = if case .input = opener { .input } else { .output }
        let device = MediaDevice(label: label, type: type, endpoint: .virtual(key: key, direction: direction))
        return lock.withLock {
            if let existing = entries.first(where: { $0.device.endpoint == device.endpoint }) { return existing.device }
            entries.append(Entry(device: device, opener: opener))
            return device
        }
    }

    private func nextCustomKey() -> String {
        lock.withLock {
            customCount += 1
            return "custom:\(customCount)"
        }
    }

    private static func split(_ specification: String) -> (String, String?) {
        guard let colon = specification.firstIndex(of: ":") else { return (specification, nil) }
        return (String(specification[..<colon]), String(specification[specification.index(after: colon)...]))
    }
}
