/// Status of a meeting session, with the raw values of the Chime SDK for iOS.
public enum MeetingSessionStatusCode: UInt32, CustomStringConvertible, Sendable, CaseIterable {
    /// Success.
    case ok = 0
    /// The connection was lost and could not be restored, or the server said so.
    case audioDisconnected = 9
    /// Reconnect triggered by connection health.
    case connectionHealthReconnect = 10
    /// The video part failed.
    case videoServiceUnavailable = 12
    /// The connection became poor.
    case networkBecomePoor = 59
    /// The server ended the call (the meeting was deleted).
    case audioServerHungup = 60
    /// The same attendee joined from another device.
    case audioJoinedFromAnotherDevice = 61
    /// The server had an internal error.
    case audioInternalServerError = 62
    /// The join token was refused (forged, revoked, or the attendee was deleted).
    case audioAuthenticationRejected = 63
    /// The meeting is full.
    case audioCallAtCapacity = 64
    /// The service is unavailable.
    case audioServiceUnavailable = 65
    /// The attendee should continue without audio.
    case audioDisconnectAudio = 69
    /// The meeting had already ended.
    case audioCallEnded = 75
    /// Any other status.
    case unknown = 78
    /// The microphone stopped responding.
    case audioInputDeviceNotResponding = 82
    /// The speaker stopped responding.
    case audioOutputDeviceNotResponding = 83
    /// Video send capacity reached; receiving still works.
    case videoAtCapacityViewOnly = 206

    /// The case name.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .audioDisconnected: "audioDisconnected"
        case .connectionHealthReconnect: "connectionHealthReconnect"
        case .videoServiceUnavailable: "videoServiceUnavailable"
        case .networkBecomePoor: "networkBecomePoor"
        case .audioServerHungup: "audioServerHungup"
        case .audioJoinedFromAnotherDevice: "audioJoinedFromAnotherDevice"
        case .audioInternalServerError: "audioInternalServerError"
        case .audioAuthenticationRejected: "audioAuthenticationRejected"
        case .audioCallAtCapacity: "audioCallAtCapacity"
        case .audioServiceUnavailable: "audioServiceUnavailable"
        case .audioDisconnectAudio: "audioDisconnectAudio"
        case .audioCallEnded: "audioCallEnded"
        case .unknown: "unknown"
        case .audioInputDeviceNotResponding: "audioInputDeviceNotResponding"
        case .audioOutputDeviceNotResponding: "audioOutputDeviceNotResponding"
        case .videoAtCapacityViewOnly: "videoAtCapacityViewOnly"
        }
    }
}
