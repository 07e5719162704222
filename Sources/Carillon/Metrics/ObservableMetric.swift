/// The keys of the dictionary ``MetricsObserver/metricsDidReceive(metrics:)`` receives (raw values as in the Chime
/// SDK).
///
/// Carillon produces the two audio loss metrics so far; the video and content-share cases exist for source
/// compatibility. Round-trip time and jitter of audio have no case here (adding cases would break exhaustive
/// `switch`es in apps); they are measured for the CLIENT_METRIC upload (`RTC_MIC_RTT_MS`, `RTC_MIC_JITTER_MS`,
/// `RTC_SPK_JITTER_MS`, `signaling.md` §3.18), not delivered to observers.
public enum ObservableMetric: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// Loss of the audio this client receives over the last second, in percent (0–100).
    case audioReceivePacketLossPercent = 0
    /// Loss of the audio this client sends, as the receiving side reports it, in percent (0–100).
    case audioSendPacketLossPercent = 1
    /// Estimated available video send bandwidth, in bit/s (not produced yet).
    case videoAvailableSendBandwidth = 2
    /// Estimated available video receive bandwidth, in bit/s (not produced yet).
    case videoAvailableReceiveBandwidth = 3
    /// Sent video bitrate, in bit/s (not produced yet).
    case videoSendBitrate = 4
    /// Loss of sent video, in percent (not produced yet).
    case videoSendPacketLossPercent = 5
    /// Sent video frames per second (not produced yet).
    case videoSendFps = 6
    /// Round-trip time of sent video, in milliseconds (not produced yet).
    case videoSendRttMs = 7
    /// Received video bitrate, in bit/s (not produced yet).
    case videoReceiveBitrate = 8
    /// Loss of received video, in percent (not produced yet).
    case videoReceivePacketLossPercent = 9
    /// Content-share video bitrate, in bit/s (not produced yet).
    case contentShareVideoSendBitrate = 10
    /// Loss of content-share video, in percent (not produced yet).
    case contentShareVideoSendPacketLossPercent = 11
    /// Content-share frames per second (not produced yet).
    case contentShareVideoSendFps = 12
    /// Round-trip time of content-share video, in milliseconds (not produced yet).
    case contentShareVideoSendRttMs = 13

    /// The case name.
    public var description: String {
        switch self {
        case .audioReceivePacketLossPercent: "audioReceivePacketLossPercent"
        case .audioSendPacketLossPercent: "audioSendPacketLossPercent"
        case .videoAvailableSendBandwidth: "videoAvailableSendBandwidth"
        case .videoAvailableReceiveBandwidth: "videoAvailableReceiveBandwidth"
        case .videoSendBitrate: "videoSendBitrate"
        case .videoSendPacketLossPercent: "videoSendPacketLossPercent"
        case .videoSendFps: "videoSendFps"
        case .videoSendRttMs: "videoSendRttMs"
        case .videoReceiveBitrate: "videoReceiveBitrate"
        case .videoReceivePacketLossPercent: "videoReceivePacketLossPercent"
        case .contentShareVideoSendBitrate: "contentShareVideoSendBitrate"
        case .contentShareVideoSendPacketLossPercent: "contentShareVideoSendPacketLossPercent"
        case .contentShareVideoSendFps: "contentShareVideoSendFps"
        case .contentShareVideoSendRttMs: "contentShareVideoSendRttMs"
        }
    }

    /// Whether this is a content-share metric (its name starts with `contentShare`).
    public var isContentShareMetric: Bool { description.hasPrefix("contentShare") }
}
