/// Why a capture source failed, with the Chime SDK's raw values.
///
/// A plain value, safe to share.
public enum CaptureSourceError: Int, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Something unexpected.
    case unknown = 0
    /// The system refused (for example a device that cannot be read).
    case systemFailure = 1
    /// Capture could not be set up: no camera, a camera that is gone, a file that cannot be read, a format out of
    /// range.
    case configurationFailure = 2
    /// One frame could not be produced; transient, capture goes on.
    case invalidFrame = 3

    /// The case name.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .systemFailure: "systemFailure"
        case .configurationFailure: "configurationFailure"
        case .invalidFrame: "invalidFrame"
        }
    }
}
