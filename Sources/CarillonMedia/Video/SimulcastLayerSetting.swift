/// One simulcast layer of the camera as the uplink policy sets it: its rid, how much it scales the source down, its
/// bitrate cap (0: the layer is off) and the size it has for the current source.
///
/// A value; no threading concerns.
public struct SimulcastLayerSetting: Sendable, Equatable {
    /// `low`, `mid` or `hi` (`a=rid`, the `rtp-stream-id` extension).
    public var rid: String
    /// The source's width and height are divided by this (1, 2 or 4).
    public var scaleDown: Int
    /// The layer's cap in kbps; 0 when the layer is off (SUBSCRIBE `max_bitrate_kbps = 0`).
    public var maxBitrateKbps: UInt32
    /// The encoded width for the current source; 0 while the source's size is unknown.
    public var width = 0
    /// The encoded height for the current source; 0 while the source's size is unknown.
    public var height = 0

    /// A layer `rid` scaling the source down by `scaleDown` with a cap of `maxBitrateKbps` (0: off), of size
    /// `width`×`height` (0 while unknown).
    public init(rid: String, scaleDown: Int, maxBitrateKbps: UInt32, width: Int = 0, height: Int = 0) {
        self.rid = rid
        self.scaleDown = scaleDown
        self.maxBitrateKbps = maxBitrateKbps
        self.width = width
        self.height = height
    }

    /// Whether the layer is sent.
    public var isActive: Bool { maxBitrateKbps > 0 }

    /// The least bitrate the layer is worth sending at, bit/s: 30 kbps for the lowest layer sent, else 150 kbps
    /// (libwebrtc's minimum for a 640×360 layer). libwebrtc asks more of larger layers; here an upper layer starts
    /// small and grows with the estimate, which grows only to about 1.5× what is sent, and a layer the estimate
    /// leaves off is brought back by probing the uplink toward its cap (`VideoSendStream`'s starved-layer probe).
    public func minimumBitrate(lowest: Bool) -> Int {
        lowest ? SimulcastUplinkPolicy.lowestLayerMinimumBitrate : SimulcastUplinkPolicy.upperLayerMinimumBitrate
    }
}
