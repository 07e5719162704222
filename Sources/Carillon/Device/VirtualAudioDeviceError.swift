import CarillonCodecs

/// Why a virtual audio device could not be registered or opened.
///
/// A plain value, safe to share.
public enum VirtualAudioDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given to ``VirtualAudioDevices/add(specification:)`` is not one of the documented forms.
    case invalidSpecification(String)
    /// A tone frequency outside 1 Hz to 20 kHz.
    case invalidFrequency(Double)
    /// A WAV file could not be read (registering an input) or created (opening a recorder).
    case file(WAVError)
    /// The device is not (or no longer) in the registry.
    case unknownDevice(String)
    /// An input was opened as an output or the reverse.
    case wrongDirection(String)
    /// The audio cannot be converted to the session's format.
    case unsupportedFormat(AudioFrameError)
    /// An app-made device's `open` closure threw; the text describes its error.
    case openFailed(String)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidSpecification(let text):
            "'\(text)' is not a virtual audio device (expected tone[:<Hz>], silence, wav:<path>, wav-loop:<path>, record:<path> or null)"
        case .invalidFrequency(let frequency): "tone frequency \(frequency) Hz is outside 1-20000 Hz"
        case .file(let error): error.description
        case .unknownDevice(let label): "\(label) is not a registered virtual audio device"
        case .wrongDirection(let label): "\(label) cannot be opened in that direction"
        case .unsupportedFormat(let error): error.description
        case .openFailed(let text): "opening the device failed: \(text)"
        }
    }
}
