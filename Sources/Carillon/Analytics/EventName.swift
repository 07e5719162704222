/// The events a session publishes to ``EventAnalyticsObserver``s and its meeting history, with Chime's raw values.
///
/// Carillon publishes today: `meetingStartRequested`, `meetingStartSucceeded`, `meetingStartFailed`,
/// `meetingReconnected`, `meetingFailed`, `meetingEnded`, `videoClientSignalingOpened` and
/// `videoClientSignalingDropped`. The others are kept for source compatibility and for apps that publish them
/// through ``EventAnalyticsController/publishEvent(name:attributes:notifyObservers:)`` (the Voice Focus ones will be
/// published by the SDK when Voice Focus lands).
public enum EventName: Int, CaseIterable, CustomStringConvertible, Sendable {
    case audioInputSelected = 0
    case audioInputFailed = 1
    case videoInputSelected = 2
    case videoInputFailed = 3
    case meetingStartRequested = 4
    case meetingStartSucceeded = 5
    case meetingReconnected = 6
    case meetingStartFailed = 7
    case meetingFailed = 8
    case meetingEnded = 9
    case videoClientSignalingOpened = 10
    case videoClientSignalingDropped = 11
    case contentShareSignalingOpened = 12
    case contentShareSignalingDropped = 13
    case videoClientIceGatheringCompleted = 14
    case contentShareIceGatheringCompleted = 15
    case contentShareStartRequested = 16
    case contentShareStarted = 17
    case contentShareStopped = 18
    case contentShareFailed = 19
    case appStateChanged = 20
    case appMemoryLow = 21
    case voiceFocusEnabled = 22
    case voiceFocusDisabled = 23
    case voiceFocusEnableFailed = 24
    case voiceFocusDisableFailed = 25
    case audioInterruptionBegan = 26
    case audioInterruptionEnded = 27
    case videoInterruptionBegan = 28
    case videoInterruptionEnded = 29
    case networkConnectionTypeChanged = 30
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
