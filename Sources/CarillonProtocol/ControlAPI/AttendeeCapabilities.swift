extension ControlAPI {
    /// What an attendee may send and receive: each `SendReceive`, `Send`, `Receive` or `None`.
    public struct AttendeeCapabilities: Codable, Sendable, Equatable {
        /// Audio capability.
        public var audio: String?
        /// Video capability.
        public var video: String?
        /// Content-share capability.
        public var content: String?

        enum CodingKeys: String, CodingKey {
            case audio = "Audio"
            case video = "Video"
            case content = "Content"
        }

        /// Creates a value; every member is optional.
        public init(audio: String? = nil, video: String? = nil, content: String? = nil) {
            self.audio = audio
            self.video = video
            self.content = content
        }
    }
}
