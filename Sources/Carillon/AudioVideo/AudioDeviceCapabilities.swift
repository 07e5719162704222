/// Which audio devices the session opens.
public enum AudioDeviceCapabilities: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// No microphone or speaker; muted packets are sent.
    case none = 0
    /// Speaker only.
    case outputOnly = 1
    /// Microphone and speaker.
    case inputAndOutput = 2

    /// The case name.
    public var description: String {
        switch self {
        case .none: "none"
        case .outputOnly: "outputOnly"
        case .inputAndOutput: "inputAndOutput"
        }
    }
}
