/// How a receiver in server-side adaptation (mode 4) wants the source of one receive m-line: SUBSCRIBE
/// `video_subscription_configuration` (`signaling.md` §3.10).
///
/// A plain value.
public struct VideoDownlinkPreference: Sendable, Equatable, Hashable {
    /// Wire priority: larger is more important (the client sends `4294967295 − p` for its priority `p`, 1 first).
    public var priority: UInt32
    /// The bitrate not to exceed when choosing a layer, kbps (300/600/1500/10000); 0 means no ceiling.
    public var targetBitrateKbps: UInt32
    /// How to step down a source with three or more layers: which layers form its ladder.
    public var degradation: VideoDegradationPreference

    /// Creates a preference.
    public init(priority: UInt32, targetBitrateKbps: UInt32, degradation: VideoDegradationPreference = .balanced) {
        self.priority = priority
        self.targetBitrateKbps = targetBitrateKbps
        self.degradation = degradation
    }

    /// What a receive m-line without a configuration gets: the least important tier, no ceiling.
    public static let unconfigured = VideoDownlinkPreference(priority: 0, targetBitrateKbps: 0)
}
