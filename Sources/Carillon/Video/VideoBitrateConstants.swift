/// The bitrate caps the Chime SDK applies to high-resolution meetings.
///
/// Immutable, safe to share.
public final class VideoBitrateConstants: Sendable {
    /// Creates the constants.
    public init() {}

    /// The camera cap when the meeting's video features are FHD: 2500 kbps.
    public let videoHighResolutionBitrateKbps: UInt32 = 2500
    /// The content-share cap when the meeting's content features are UHD: 2500 kbps.
    public let contentHighResolutionBitrateKbps: UInt32 = 2500
}
