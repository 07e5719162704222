/// The keys of the dictionary ``MetricsObserver/metricsDidReceive(metrics:)`` receives (raw values as in the Chime
/// SDK).
///
/// Carillon produces the audio loss metrics and, while video is sent or received, the video metrics (all but
/// ``videoAvailableReceiveBandwidth``: the client runs no receive-side estimator); the content-share cases come
/// with content share. Round-trip time and jitter of audio have no case here (adding cases would break exhaustive
/// `switch`es in apps); they are measured for the CLIENT_METRIC upload (`RTC_MIC_RTT_MS`, `RTC_MIC_JITTER_MS`,
/// `RTC_SPK_JITTER_MS`, `signaling.md` §3.18), not delivered to observers.
public enum ObservableMetric: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// Loss of the audio this client receives over the last second, in percent (0–100).
    case audioReceivePacketLossPercent = 0
    /// Loss of the audio this client sends, as the receiving side reports it, in percent (0–100).
    case audioSendPacketLossPercent = 1
    /// The send-side bandwidth estimate for the camera, in bit/s (what the encoder may use).
    case videoAvailableSendBandwidth = 2
    /// Estimated available video receive bandwidth, in bit/s (not produced yet).
    case videoAvailableReceiveBandwidth = 3
    /// Sent camera bitrate over the last second, in bit/s (media payload, retransmissions excluded).
    case videoSendBitrate = 4
    /// Loss of the sent camera stream as the server last reported it (packets never received, retransmissions
    /// counted as received), in percent.
    case videoSendPacketLossPercent = 5
    /// Camera pictures encoded and sent over the last second.
    case videoSendFps = 6
    /// Round trip to the server, in milliseconds.
    case videoSendRttMs = 7
    /// Received video bitrate over the last second, all streams, in bit/s (media payload).
    case videoReceiveBitrate = 8
    /// Loss of received video over the last second, all streams: packets never received (retransmissions
    /// counted as received), in percent.
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
