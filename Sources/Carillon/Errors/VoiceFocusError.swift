/// Why Voice Focus could not be turned on or off, with the Chime SDK's cases and raw values.
///
/// ``RealtimeControllerFacade/realtimeSetVoiceFocusEnabled(enabled:)`` returns `false` and logs one of these; Chime
/// attaches it to its `voiceFocusEnableFailed`/`voiceFocusDisableFailed` meeting events.
public enum VoiceFocusError: Int, Error, CustomStringConvertible, Sendable {
    /// The audio session has not started (before `start()` completes, or after `stop()`).
    case audioClientNotStarted = 0
    /// The audio engine refused the change.
    case audioClientError = 1
    /// The suppressor refused its setting.
    case setParamFailed = 2
    /// The suppressor is not available: on Linux, no RNNoise library was found (`make rnnoise` installs it).
    case notInitialized = 3
    /// Any other failure.
    case other = 4

    /// Maps the media engine's error codes as Chime does: 1 is `audioClientError`, 6 `notInitialized`, 19
    /// `setParamFailed`, anything else `other`.
    public init(from xalError: Int) {
        switch xalError {
        case 1: self = .audioClientError
        case 6: self = .notInitialized
        case 19: self = .setParamFailed
        default: self = .other
        }
    }

    /// The case name.
    public var description: String {
        switch self {
        case .audioClientNotStarted: "audioClientNotStarted"
        case .audioClientError: "audioClientError"
        case .setParamFailed: "setParamFailed"
        case .notInitialized: "notInitialized"
        case .other: "other"
        }
    }
}
