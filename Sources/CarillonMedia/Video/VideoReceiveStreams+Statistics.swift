extension VideoReceiveStreams {
    /// What one received stream got so far (``VideoReceiveStreams/statistics``); counters continue when its video
    /// moves to another SSRC.
    ///
    /// A value; no threading concerns.
    public struct Statistics: Sendable, Equatable {
        /// The tile id (``VideoReceiveTrack/videoId``).
        public var videoId: Int
        /// Who sends it.
        public var attendeeId: String
        /// The stream id it carries.
        public var streamId: UInt32
        /// The media SSRC it arrives on now.
        public var ssrc: UInt32
        /// Payload bytes received (RTX included).
        public var bytesReceived: Int
        /// Packets received (RTX included).
        public var packetsReceived: Int
        /// Complete frames assembled, decoded or not.
        public var framesReceived: Int
        /// Pictures decoded.
        public var framesDecoded: Int
        /// Key frames among them.
        public var keyFramesDecoded: Int
        /// Frames the decoder refused (a lost reference or corrupt data).
        public var decodeErrors: Int
        /// NACK messages sent.
        public var nacksSent: Int
        /// Sequence numbers those NACKs asked for.
        public var packetsNacked: Int
        /// Key frames asked for (PLI).
        public var keyFrameRequests: Int
        /// The last size, 0 before the first key frame.
        public var width: Int
        /// The last size, 0 before the first key frame.
        public var height: Int
        /// The frame assembler's counters (frames skipped, stalls).
        public var assembly: VP8FrameAssembler.Statistics
    }
}
