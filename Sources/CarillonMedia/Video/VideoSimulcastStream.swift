/// One simulcast layer a ``VideoSendStream`` sends: its setting (rid, scale, cap; off at 0 kbps) and its SSRCs.
///
/// A value; no threading concerns.
public struct VideoSimulcastStream: Sendable, Equatable {
    /// The layer's rid, scale and cap.
    public var setting: SimulcastLayerSetting
    /// The layer's media SSRC.
    public var ssrc: UInt32
    /// The layer's RTX SSRC.
    public var rtxSSRC: UInt32

    /// The layer `setting` sent on `ssrc`, repaired on `rtxSSRC`.
    public init(setting: SimulcastLayerSetting, ssrc: UInt32, rtxSSRC: UInt32) {
        self.setting = setting
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}
