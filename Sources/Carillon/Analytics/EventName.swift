/// The events a session publishes to ``EventAnalyticsObserver``s and its meeting history, with Chime's raw values.
///
/// Carillon publishes today: `meetingStartRequested`, `meetingStartSucceeded`, `meetingStartFailed`,
/// `meetingReconnected`, `meetingFailed`, `meetingEnded`, `videoClientSignalingOpened`,
/// `videoClientSignalingDropped`, `audioInputSelected` and `audioInputFailed` (the session's device controller),
/// and the four Voice Focus events; as in Chime, `audioInputSelected` and the Voice Focus events go to the meeting
/// history and the reporter only. The others are kept for source compatibility and for apps that publish them
/// through ``EventAnalyticsController/publishEvent(name:attributes:notifyObservers:)``.
public enum EventName: Int, CaseIterable, CustomStringConvertible, Sendable {
    /// Audio input selected.
    case audioInputSelected = 0
    /// Audio input failed.
    case audioInputFailed = 1
    /// Video input selected.
    case videoInputSelected = 2
    /// Video input failed.
    case videoInputFailed = 3
    /// Meeting start requested.
    case meetingStartRequested = 4
    /// Meeting start succeeded.
    case meetingStartSucceeded = 5
    /// Meeting reconnected.
    case meetingReconnected = 6
    /// Meeting start failed.
    case meetingStartFailed = 7
    /// Meeting failed.
    case meetingFailed = 8
    /// Meeting ended.
    case meetingEnded = 9
    /// Video client signaling opened.
    case videoClientSignalingOpened = 10
    /// Video client signaling dropped.
    case videoClientSignalingDropped = 11
    /// Content share signaling opened.
    case contentShareSignalingOpened = 12
    /// Content share signaling dropped.
    case contentShareSignalingDropped = 13
    /// Video client ice gathering completed.
    case videoClientIceGatheringCompleted = 14
    /// Content share ice gathering completed.
    case contentShareIceGatheringCompleted = 15
    /// Content share start requested.
    case contentShareStartRequested = 16
    /// Content share started.
    case contentShareStarted = 17
    /// Content share stopped.
    case contentShareStopped = 18
    /// Content share failed.
    case contentShareFailed = 19
    /// App state changed.
    case appStateChanged = 20
    /// App memory low.
    case appMemoryLow = 21
    /// Voice focus enabled.
    case voiceFocusEnabled = 22
    /// Voice focus disabled.
    case voiceFocusDisabled = 23
    /// Voice focus enable failed.
    case voiceFocusEnableFailed = 24
    /// Voice focus disable failed.
    case voiceFocusDisableFailed = 25
    /// Audio interruption began.
    case audioInterruptionBegan = 26
    /// Audio interruption ended.
    case audioInterruptionEnded = 27
    /// Video interruption began.
    case videoInterruptionBegan = 28
    /// Video interruption ended.
    case videoInterruptionEnded = 29
    /// Network connection type changed.
    case networkConnectionTypeChanged = 30
    /// Unknown.
    case unknown = 31

    /// The case name, as Chime reports it.
    public var description: String {
        switch self {
        case .audioInputSelected: "audioInputSelected"
        case .audioInputFailed: "audioInputFailed"
        case .videoInputSelected: "videoInputSelected"
        case .videoInputFailed: "videoInputFailed"
        case .meetingStartRequested: "meetingStartRequested"
        case .meetingStartSucceeded: "meetingStartSucceeded"
        case .meetingReconnected: "meetingReconnected"
        case .meetingStartFailed: "meetingStartFailed"
        case .meetingFailed: "meetingFailed"
        case .meetingEnded: "meetingEnded"
        case .videoClientSignalingOpened: "videoClientSignalingOpened"
        case .videoClientSignalingDropped: "videoClientSignalingDropped"
        case .contentShareSignalingOpened: "contentShareSignalingOpened"
        case .contentShareSignalingDropped: "contentShareSignalingDropped"
        case .videoClientIceGatheringCompleted: "videoClientIceGatheringCompleted"
        case .contentShareIceGatheringCompleted: "contentShareIceGatheringCompleted"
        case .contentShareStartRequested: "contentShareStartRequested"
        case .contentShareStarted: "contentShareStarted"
        case .contentShareStopped: "contentShareStopped"
        case .contentShareFailed: "contentShareFailed"
        case .appStateChanged: "appStateChanged"
        case .appMemoryLow: "appMemoryLow"
        case .voiceFocusEnabled: "voiceFocusEnabled"
        case .voiceFocusDisabled: "voiceFocusDisabled"
        case .voiceFocusEnableFailed: "voiceFocusEnableFailed"
        case .voiceFocusDisableFailed: "voiceFocusDisableFailed"
        case .audioInterruptionBegan: "audioInterruptionBegan"
        case .audioInterruptionEnded: "audioInterruptionEnded"
        case .videoInterruptionBegan: "videoInterruptionBegan"
        case .videoInterruptionEnded: "videoInterruptionEnded"
        case .networkConnectionTypeChanged: "networkConnectionTypeChanged"
        case .unknown: "unknown"
        }
    }
}
