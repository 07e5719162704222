/// How local video is sent: `startLocalVideo(config:)` and `startLocalVideo(source:config:)`.
///
/// A plain configuration object; the session reads it once, when local video starts.
public final class LocalVideoConfiguration {
    /// Whether to send several resolutions at once for receivers of different bandwidth. Ignored for content share.
    /// Not passed to Carillon's session yet (it chooses its layers itself); kept for source compatibility.
    public var simulcastEnabled: Bool
    /// The most the video may use, in kbps; 0 lets the session decide. When the meeting allows FHD video the session
    /// uses ``VideoBitrateConstants/videoHighResolutionBitrateKbps`` instead, as the Chime SDK does.
    public var maxBitRateKbps: UInt32

    /// Creates a configuration.
    public init(maxBitRateKbps: UInt32 = 0, simulcastEnabled: Bool = true) {
        self.maxBitRateKbps = maxBitRateKbps
        self.simulcastEnabled = simulcastEnabled
    }
}
