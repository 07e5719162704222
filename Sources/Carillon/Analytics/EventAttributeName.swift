/// The keys of the attribute dictionaries events carry and ``EventAnalyticsFacade/getCommonEventAttributes()``
/// returns, with Chime's raw values. `meetingHistory` is declared, as in Chime, but never attached.
public enum EventAttributeName: Int, CaseIterable, CustomStringConvertible, Sendable {
    /// The device name attribute.
    case deviceName = 0
    /// The device manufacturer attribute.
    case deviceManufacturer = 1
    /// The device model attribute.
    case deviceModel = 2
    /// The os name attribute.
    case osName = 3
    /// The os version attribute.
    case osVersion = 4
    /// The sdk name attribute.
    case sdkName = 5
    /// The sdk version attribute.
    case sdkVersion = 6
    /// The media sdk version attribute.
    case mediaSdkVersion = 7
    /// The timestamp ms attribute.
    case timestampMs = 8
    /// The attendee id attribute.
    case attendeeId = 9
    /// The external meeting id attribute.
    case externalMeetingId = 10
    /// The external user id attribute.
    case externalUserId = 11
    /// The meeting id attribute.
    case meetingId = 12
    /// The meeting history attribute.
    case meetingHistory = 13
    /// The max video tile count attribute.
    case maxVideoTileCount = 14
    /// The meeting start duration ms attribute.
    case meetingStartDurationMs = 15
    /// The meeting reconnect duration ms attribute.
    case meetingReconnectDurationMs = 16
    /// The meeting duration ms attribute.
    case meetingDurationMs = 17
    /// The meeting error message attribute.
    case meetingErrorMessage = 18
    /// The meeting status attribute.
    case meetingStatus = 19
    /// The poor connection count attribute.
    case poorConnectionCount = 20
    /// The retry count attribute.
    case retryCount = 21
    /// The video input error attribute.
    case videoInputError = 22
    /// The audio input error attribute.
    case audioInputError = 23
    /// The signaling dropped error attribute.
    case signalingDroppedError = 24
    /// The content share error attribute.
    case contentShareError = 25
    /// The app state attribute.
    case appState = 26
    /// The battery level attribute.
    case batteryLevel = 27
    /// The battery state attribute.
    case batteryState = 28
    /// The voice focus error attribute.
    case voiceFocusError = 29
    /// The audio device type attribute.
    case audioDeviceType = 30
    /// The video device type attribute.
    case videoDeviceType = 31
    /// The low power mode enabled attribute.
    case lowPowerModeEnabled = 32
    /// The video interruption reason attribute.
    case videoInterruptionReason = 33
    /// The ice gathering duration ms attribute.
    case iceGatheringDurationMs = 34
    /// The signaling open duration ms attribute.
    case signalingOpenDurationMs = 35
    /// The network connection type attribute.
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
