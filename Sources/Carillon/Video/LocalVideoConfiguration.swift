/// How local video is sent: `startLocalVideo(config:)` and `startLocalVideo(source:config:)`.
///
/// A plain configuration object; the session reads it once, when local video starts.
public final class LocalVideoConfiguration {
    /// Whether to send several resolutions at once for receivers of different bandwidth (true by default, as on
    /// iOS): the camera goes out in up to three layers, ÷4, ÷2 and ÷1 of the source (rids low, mid, hi), switched on
    /// and off by the meeting's size as Chime's `DefaultSimulcastUplinkPolicy` does (with two participants, one
    /// unscaled layer). Ignored for content share and for a source with a screen-content hint.
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
