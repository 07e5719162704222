/// An attendee's volume as the realtime callbacks report it.
public enum VolumeLevel: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// The attendee is muted.
    case muted = -1
    /// Silent.
    case notSpeaking = 0
    /// Quiet.
    case low = 1
    /// Normal.
    case medium = 2
    /// Loud.
    case high = 3

    /// The case name.
    public var description: String {
        switch self {
        case .muted: "muted"
        case .notSpeaking: "notSpeaking"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
