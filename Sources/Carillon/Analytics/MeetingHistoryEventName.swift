/// The names of ``MeetingHistoryEvent``s: the same names as ``EventName`` with Chime's raw values, which differ from
/// ``EventName``'s at 4...9.
public enum MeetingHistoryEventName: Int, CaseIterable, CustomStringConvertible, Sendable {
    /// Audio input selected.
    case audioInputSelected = 0
    /// Audio input failed.
    case audioInputFailed = 1
    /// Video input selected.
    case videoInputSelected = 2
    /// Video input failed.
    case videoInputFailed = 3
    /// Meeting start failed.
    case meetingStartFailed = 4
    /// Meeting start requested.
    case meetingStartRequested = 5
    /// Meeting start succeeded.
    case meetingStartSucceeded = 6
    /// Meeting ended.
    case meetingEnded = 7
    /// Meeting failed.
    case meetingFailed = 8
    /// Meeting reconnected.
    case meetingReconnected = 9
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
        case .meetingStartFailed: "meetingStartFailed"
        case .meetingStartRequested: "meetingStartRequested"
        case .meetingStartSucceeded: "meetingStartSucceeded"
        case .meetingEnded: "meetingEnded"
        case .meetingFailed: "meetingFailed"
        case .meetingReconnected: "meetingReconnected"
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

    /// The history name of `event` (same name).
    public init(_ event: EventName) {
        self = Self.allCases.first { $0.description == event.description } ?? .unknown
    }
}
