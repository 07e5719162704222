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
}
