/// Errors of the media session, with the Chime SDK's cases and raw values.
public enum MediaError: Int, Error, CustomStringConvertible, Sendable {
    /// The call is not allowed in the session's current state (e.g. `start()` twice, or sending before start).
    case illegalState = 0
    /// The session could not start (e.g. blank service URLs).
    case audioFailedToStart = 1
    /// No camera is selected.
    case noCameraSelected = 2
    /// No audio device is available.
    case noAudioDevices = 3
    /// The output port could not be overridden.
    case overrideOutputAudioPortFailed = 4
    /// The preferred input could not be set.
    case setPreferredAudioInputFailed = 5

    /// The case name.
    public var description: String {
        switch self {
        case .illegalState: "illegalState"
        case .audioFailedToStart: "audioFailedToStart"
        case .noCameraSelected: "noCameraSelected"
        case .noAudioDevices: "noAudioDevices"
        case .overrideOutputAudioPortFailed: "overrideOutputAudioPortFailed"
        case .setPreferredAudioInputFailed: "setPreferredAudioInputFailed"
        }
    }
}
