/// Audio format of the session.
public enum AudioMode: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// Mono, 16 kHz.
    case mono16K = 1
    /// Mono, 48 kHz.
    case mono48K = 2
    /// Stereo, 48 kHz.
    case stereo48K = 3

    /// The case name.
    public var description: String {
        switch self {
        case .mono16K: "mono16K"
        case .mono48K: "mono48K"
        case .stereo48K: "stereo48K"
        }
    }
}
