/// One second of a ``VideoSendStream``'s sending (``VideoSendStream/measure(seconds:roundTrip:)``): rates over the
/// second, the newest report about it, the estimate and the encoded size. A missing measurement is nil.
///
/// A value; no threading concerns.
public struct VideoSendMetrics: Sendable, Equatable {
    /// The stream id the server allocated to the camera (SUBSCRIBE_ACK), 0 when unknown.
    public var streamId: UInt32
    /// Media payload sent, bit/s (retransmissions excluded).
    public var bitrate: Double
    /// Media packets sent per second.
    public var packetsPerSecond: Double
    /// Pictures the source gave.
    public var inputFramesPerSecond: Double
    /// Pictures encoded (and sent).
    public var encodedFramesPerSecond: Double
    /// What the other side's newest receiver report about the stream said was lost, %.
    public var lossPercent: Double?
    /// Interarrival jitter of the stream as the other side reported it, ms.
    public var jitterMilliseconds: Double?
    /// Round trip to the other side, ms.
    public var roundTripMilliseconds: Double?
    /// The send-side bandwidth estimate, bit/s.
    public var availableBandwidth: Double
    /// NACK messages received per second.
    public var nacksReceived: Double
    /// PLIs received per second.
    public var plisReceived: Double
    /// FIR entries received per second.
    public var firsReceived: Double
    /// The encoded width of the largest layer sent, 0 before the first picture.
    public var width: Int
    /// The encoded height of the largest layer sent, 0 before the first picture.
    public var height: Int

    /// A measurement; see the properties.
    public init(streamId: UInt32, bitrate: Double, packetsPerSecond: Double, inputFramesPerSecond: Double,
                encodedFramesPerSecond: Double, lossPercent: Double?, jitterMilliseconds: Double?,
                roundTripMilliseconds: Double?, availableBandwidth: Double, nacksReceived: Double,
                plisReceived: Double, firsReceived: Double, width: Int, height: Int) {
        self.streamId = streamId
        self.bitrate = bitrate
        self.packetsPerSecond = packetsPerSecond
        self.inputFramesPerSecond = inputFramesPerSecond
        self.encodedFramesPerSecond = encodedFramesPerSecond
        self.lossPercent = lossPercent
        self.jitterMilliseconds = jitterMilliseconds
        self.roundTripMilliseconds = roundTripMilliseconds
        self.availableBandwidth = availableBandwidth
        self.nacksReceived = nacksReceived
        self.plisReceived = plisReceived
        self.firsReceived = firsReceived
        self.width = width
        self.height = height
    }
}
