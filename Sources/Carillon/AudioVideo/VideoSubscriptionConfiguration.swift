/// How the app wants one remote video: its priority and the resolution to aim for, for
/// `updateVideoSourceSubscriptions(addedOrUpdated:removed:)`.
///
/// A plain configuration object; the session reads it when it is passed.
public final class VideoSubscriptionConfiguration {
    /// How much the video matters (``VideoPriority/high`` by default).
    public var priority: VideoPriority = .high
    /// The resolution to aim for (``VideoResolution/high``, 960x720, by default).
    public var targetResolution: VideoResolution = .high

    /// Creates a configuration with the defaults.
    public init() {}

    /// The configuration as sent to the server: the priority as Chime's `p` (1 first: highest is 1, lowest 41) in its
    /// wire form, and the target resolution as a bitrate (up to 320x240: 300 kbps, up to 640x480: 600, up to 960x720:
    /// 1500, beyond: 10000).
    var receivePreference: SessionMediaPlan.ReceivePreference {
        let p = UInt32(VideoPriority.highest.rawValue - priority.rawValue + 1)
        let pixels = targetResolution.width * targetResolution.height
        let kbps: UInt32 = pixels <= 320 * 240 ? 300 : pixels <= 640 * 480 ? 600 : pixels <= 960 * 720 ? 1_500 : 10_000
        return SessionMediaPlan.ReceivePreference(priority: SessionMediaPlan.ReceivePreference.wirePriority(p),
                                                  targetBitrateKbps: kbps)
    }
}
