/// The keys of the attribute dictionaries events carry and ``EventAnalyticsFacade/getCommonEventAttributes()``
/// returns, with Chime's raw values. `meetingHistory` is declared, as in Chime, but never attached.
public enum EventAttributeName: Int, CaseIterable, CustomStringConvertible, Sendable {
    case deviceName = 0
    case deviceManufacturer = 1
    case deviceModel = 2
    case osName = 3
    case osVersion = 4
    case sdkName = 5
    case sdkVersion = 6
    case mediaSdkVersion = 7
    case timestampMs = 8
    case attendeeId = 9
    case externalMeetingId = 10
    case externalUserId = 11
    case meetingId = 12
    case meetingHistory = 13
    case maxVideoTileCount = 14
    case meetingStartDurationMs = 15
    case meetingReconnectDurationMs = 16
    case meetingDurationMs = 17
    case meetingErrorMessage = 18
    case meetingStatus = 19
    case poorConnectionCount = 20
    case retryCount = 21
    case videoInputError = 22
    case audioInputError = 23
    case signalingDroppedError = 24
    case contentShareError = 25
    case appState = 26
    case batteryLevel = 27
    case batteryState = 28
    case voiceFocusError = 29
    case audioDeviceType = 30
    case videoDeviceType = 31
    case lowPowerModeEnabled = 32
    case videoInterruptionReason = 33
    case iceGatheringDurationMs = 34
    case signalingOpenDurationMs = 35
    case networkConnectionType = 36

    /// The case name, as Chime reports it.
    public var description: String {
        switch self {
        case .deviceName: "deviceName"
        case .deviceManufacturer: "deviceManufacturer"
        case .deviceModel: "deviceModel"
        case .osName: "osName"
        case .osVersion: "osVersion"
        case .sdkName: "sdkName"
        case .sdkVersion: "sdkVersion"
        case .mediaSdkVersion: "mediaSdkVersion"
        case .timestampMs: "timestampMs"
        case .attendeeId: "attendeeId"
        case .externalMeetingId: "externalMeetingId"
        case .externalUserId: "externalUserId"
        case .meetingId: "meetingId"
        case .meetingHistory: "meetingHistory"
        case .maxVideoTileCount: "maxVideoTileCount"
        case .meetingStartDurationMs: "meetingStartDurationMs"
        case .meetingReconnectDurationMs: "meetingReconnectDurationMs"
        case .meetingDurationMs: "meetingDurationMs"
        case .meetingErrorMessage: "meetingErrorMessage"
        case .meetingStatus: "meetingStatus"
        case .poorConnectionCount: "poorConnectionCount"
        case .retryCount: "retryCount"
        case .videoInputError: "videoInputError"
        case .audioInputError: "audioInputError"
        case .signalingDroppedError: "signalingDroppedError"
        case .contentShareError: "contentShareError"
        case .appState: "appState"
        case .batteryLevel: "batteryLevel"
        case .batteryState: "batteryState"
        case .voiceFocusError: "voiceFocusError"
        case .audioDeviceType: "audioDeviceType"
        case .videoDeviceType: "videoDeviceType"
        case .lowPowerModeEnabled: "lowPowerModeEnabled"
        case .videoInterruptionReason: "videoInterruptionReason"
        case .iceGatheringDurationMs: "iceGatheringDurationMs"
        case .signalingOpenDurationMs: "signalingOpenDurationMs"
        case .networkConnectionType: "networkConnectionType"
        }
    }
}
