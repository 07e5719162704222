/// Permission errors of the Chime SDK. On Linux there is no permission prompt; they are kept for source compatibility.
public enum PermissionError: Int, Error, CustomStringConvertible, Sendable {
    /// Microphone access was refused.
    case audioPermissionError = 0
    /// Camera access was refused.
    case videoPermissionError = 1

    /// The case name.
    public var description: String {
        switch self {
        case .audioPermissionError: "audioPermissionError"
        case .videoPermissionError: "videoPermissionError"
        }
    }
}
