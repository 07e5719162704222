/// How a ``VideoSendStream`` sends, from the negotiated m-line: its SSRCs and payload types, the extensions it writes,
/// its cap and, with simulcast, its layers.
///
/// A value; no threading concerns.
public struct VideoSendConfiguration: Sendable, Equatable {
    /// The SSRC of the stream (the lowest layer's with simulcast, where ``simulcast`` names every layer's).
    public var ssrc: UInt32
    /// The RTX SSRC paired with ``ssrc``.
    public var rtxSSRC: UInt32
    /// VP8's payload type.
    public var payloadType: UInt8
    /// The RTX payload type paired with VP8, when RTX was negotiated (retransmissions and probes go over it; without
    /// it a NACKed packet is sent again as it was).
    public var rtxPayloadType: UInt8?
    /// The transport-wide sequence number extension's id, when transport-cc was negotiated: every packet leaving the
    /// pacer is numbered and the other side's feedback drives the send-side estimate. Without it the estimate
    /// follows report blocks and REMB only.
    public var transportCCExtensionId: UInt8?
    /// The CNAME of the sender's reports.
    public var cname: String
    /// The stream id the server allocated to the camera (for CLIENT_METRIC), 0 when unknown.
    public var streamId: UInt32
    /// The cap in bit/s (0: ``VideoSendStream/defaultMaximumBitrate``, with simulcast
    /// ``VideoSendStream/defaultSimulcastMaximumBitrate``).
    public var maximumBitrate: Int
    /// Whether the pictures are screen content (encoder tuned for it, at most
    /// ``VideoSendStream/maximumContentFrameRate``).
    public var screenContent: Bool
    /// Simulcast: one entry per layer, lowest first (their settings from ``SimulcastUplinkPolicy``); empty for one
    /// stream on ``ssrc``.
    public var simulcast: [VideoSimulcastStream]
    /// The `rtp-stream-id` extension's id: written on every media packet of a simulcast layer.
    public var ridExtensionId: UInt8?
    /// The `repaired-rtp-stream-id` extension's id: written on every RTX packet of a simulcast layer.
    public var repairedRidExtensionId: UInt8?

    /// A configuration; see the properties.
    public init(ssrc: UInt32, rtxSSRC: UInt32, payloadType: UInt8, rtxPayloadType: UInt8?,
                transportCCExtensionId: UInt8?, cname: String, streamId: UInt32 = 0, maximumBitrate: Int,
                screenContent: Bool, simulcast: [VideoSimulcastStream] = [], ridExtensionId: UInt8? = nil,
                repairedRidExtensionId: UInt8? = nil) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.transportCCExtensionId = transportCCExtensionId
        self.cname = cname
        self.streamId = streamId
        self.maximumBitrate = maximumBitrate
        self.screenContent = screenContent
        self.simulcast = simulcast
        self.ridExtensionId = ridExtensionId
        self.repairedRidExtensionId = repairedRidExtensionId
    }
}
