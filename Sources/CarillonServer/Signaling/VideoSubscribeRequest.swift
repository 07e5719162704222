import NIOCore

/// What a SUBSCRIBE asks of the media side about video, after the signaling core applied the meeting's rules.
public struct VideoSubscribeRequest: Sendable, Equatable {
    /// Whether the session's camera m-line may carry video to the server.
    public enum Sending: Sendable, Equatable {
        /// The client sends no video.
        case none
        /// The client sends video and may.
        case allowed
        /// The client wants to send video but the meeting is at its sender limit: answer the camera m-line inactive.
        case refused
    }

    /// What SUBSCRIBE `send_streams` announced about one of the session's encodings (0 when not announced): the
    /// mode-4 allocation orders a receiver's layers by it (its degradation preference, `policies.md` §2.6).
    public struct StreamFormat: Sendable, Equatable {
        /// The encoded size.
        public var width: UInt32
        public var height: UInt32
        /// Frames per second.
        public var framerate: UInt32

        /// Creates a format.
        public init(width: UInt32, height: UInt32, framerate: UInt32) {
            self.width = width
            self.height = height
            self.framerate = framerate
        }
    }

    /// The decision about the client's own video.
    public var sending: Sending
    /// One entry per video m-line of the offer, in SDP order (`receive_stream_ids`): the stream to forward on it, or
    /// nil for the camera m-line, inactive m-lines and streams that no longer exist.
    public var receive: [VideoSourceReference?]
    /// How often the media side asks the session's video for a key frame on its own: every 10 s for a content share
    /// (`<attendeeId>#content`) whose JOIN did not set `disable_periodic_keyframe_request_on_content_sender`, so a
    /// screen that rarely changes still refreshes its receivers; nil otherwise.
    public var keyFrameInterval: TimeAmount?
    /// The stream ids of the session's own video encodings, in SUBSCRIBE `send_streams` order (simulcast: lowest layer
    /// first), so the media side can name the layers it demultiplexes; empty when it sends none.
    public var sendStreamIds: [UInt32]
    /// The formats of those encodings, in the same order (empty when not known).
    public var sendStreamFormats: [StreamFormat]
    /// Server-side adaptation (mode 4, negotiated at JOIN): the preference of each configured receive m-line, by mid;
    /// nil when the session picks its streams itself (every subscribed source is forwarded).
    public var preferences: [String: VideoDownlinkPreference]?

    /// Creates a request.
    public init(sending: Sending = .none, receive: [VideoSourceReference?] = [], keyFrameInterval: TimeAmount? = nil,
                sendStreamIds: [UInt32] = [], sendStreamFormats: [StreamFormat] = [],
                preferences: [String: VideoDownlinkPreference]? = nil) {
        self.sending = sending
        self.receive = receive
        self.keyFrameInterval = keyFrameInterval
        self.sendStreamIds = sendStreamIds
        self.sendStreamFormats = sendStreamFormats
        self.preferences = preferences
    }
}
