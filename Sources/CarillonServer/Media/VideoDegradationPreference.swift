/// What a receiver would rather keep when one of its sources must be sent at less than its best: SUBSCRIBE and
/// REMOTE_VIDEO_UPDATE `quality_adaptation_preference` (`policies.md` §2.2, §2.6). It decides the ladder of a source
/// with three or more layers, the layers the mode-4 allocation steps along (``VideoDownlinkAllocator/ladder(_:degradation:)``).
public enum VideoDegradationPreference: Sendable, Equatable, Hashable {
    /// Resolution steps first at low rates, frame rate later (the default).
    case balanced
    /// Keep the frame rate: lower the resolution first.
    case maintainFramerate
    /// Keep the resolution: lower the frame rate first.
    case maintainResolution
}
