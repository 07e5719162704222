/// One second of one stream a ``VideoReceiveStreams`` receives (``VideoReceiveStreams/measure(_:seconds:)``).
///
/// A value; no threading concerns.
public struct VideoReceiveMetrics: Sendable, Equatable {
    /// The stream id it carries (``VideoReceiveTrack/streamId``).
    public var streamId: UInt32
    /// Media payload received, bit/s.
    public var bitrate: Double
    /// Packets received per second.
    public var packetsPerSecond: Double
    /// Packets expected in the second (from sequence numbers).
    public var expected: Int
    /// Packets lost among ``expected``.
    public var lost: Int
    /// Pictures decoded per second.
    public var decodedFramesPerSecond: Double
    /// NACK messages sent per second.
    public var nacksSent: Double
    /// PLIs sent per second.
    public var plisSent: Double
    /// Interarrival jitter, ms.
    public var jitterMilliseconds: Double?
    /// The last decoded width, 0 before the first frame.
    public var width: Int
    /// The last decoded height, 0 before the first frame.
    public var height: Int

    /// A measurement; see the properties.
    public init(streamId: UInt32, bitrate: Double, packetsPerSecond: Double, expected: Int, lost: Int,
                decodedFramesPerSecond: Double, nacksSent: Double, plisSent: Double, jitterMilliseconds: Double?,
                width: Int, height: Int) {
        self.streamId = streamId
        self.bitrate = bitrate
        self.packetsPerSecond = packetsPerSecond
        self.expected = expected
        self.lost = lost
        self.decodedFramesPerSecond = decodedFramesPerSecond
        self.nacksSent = nacksSent
        self.plisSent = plisSent
        self.jitterMilliseconds = jitterMilliseconds
        self.width = width
        self.height = height
    }
}
