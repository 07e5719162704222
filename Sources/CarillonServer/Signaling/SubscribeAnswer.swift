/// The media side's answer to a SUBSCRIBE: the SDP answer and the remote video it will send on which m-line.
public struct SubscribeAnswer: Sendable, Equatable {
    /// One receive m-line that carries a stream: SUBSCRIBE_ACK `tracks` (`track_label` is `v_<mid>`).
    public struct Track: Sendable, Equatable {
        /// The m-line's mid.
        public var mid: String
        /// The stream forwarded on it.
        public var streamId: UInt32
        /// The SSRC the server sends it with (declared in the answer).
        public var ssrc: UInt32

        /// Creates a track mapping.
        public init(mid: String, streamId: UInt32, ssrc: UInt32) {
            self.mid = mid
            self.streamId = streamId
            self.ssrc = ssrc
        }
    }

    /// The SDP answer.
    public var sdp: String
    /// The receive m-lines that carry a stream.
    public var tracks: [Track]

    /// Creates an answer.
    public init(sdp: String, tracks: [Track] = []) {
        self.sdp = sdp
        self.tracks = tracks
    }
}
