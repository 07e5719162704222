/// What one received remote video got so far: a Carillon addition (the iOS SDK has no per-tile statistics), for
/// bots and recorders that report what they receive.
public struct RemoteVideoStatistics: Sendable, Equatable {
    /// The video's id, which is its tile's id.
    public var videoId: Int
    /// Whose video it is.
    public var attendeeId: String
    /// RTP payload bytes received (retransmissions included).
    public var bytesReceived: Int
    /// RTP packets received (retransmissions included).
    public var packetsReceived: Int
    /// Complete frames received, decoded or not (only videos whose tile has a view bound are decoded).
    public var framesReceived: Int
    /// Frames decoded.
    public var framesDecoded: Int
    /// The size of the last decoded frame, or of the last key frame while not decoding (0 before the first).
    public var width: Int
    /// The size of the last decoded frame, or of the last key frame while not decoding (0 before the first).
    public var height: Int

    /// Creates statistics.
    public init(videoId: Int, attendeeId: String, bytesReceived: Int, framesReceived: Int, framesDecoded: Int,
                width: Int, height: Int, packetsReceived: Int = 0) {
        self.videoId = videoId
        self.attendeeId = attendeeId
        self.bytesReceived = bytesReceived
        self.packetsReceived = packetsReceived
        self.framesReceived = framesReceived
        self.framesDecoded = framesDecoded
        self.width = width
        self.height = height
    }
}
