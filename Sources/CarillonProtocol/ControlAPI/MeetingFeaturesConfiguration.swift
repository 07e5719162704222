extension ControlAPI {
    /// Meeting features: audio echo reduction, video and content resolution caps, attendee cap.
    public struct MeetingFeaturesConfiguration: Codable, Sendable, Equatable {
        /// `{"EchoReduction": "AVAILABLE" | "UNAVAILABLE"}`.
        public struct Audio: Codable, Sendable, Equatable {
            /// `AVAILABLE` or `UNAVAILABLE`.
            public var echoReduction: String?
            enum CodingKeys: String, CodingKey { case echoReduction = "EchoReduction" }
            /// Creates the audio features.
            public init(echoReduction: String? = nil) { self.echoReduction = echoReduction }
        }

        /// `{"MaxResolution": ...}` for video or content.
        public struct Resolution: Codable, Sendable, Equatable {
            /// `None`, `HD`, `FHD` (video) or `None`, `FHD`, `UHD` (content).
            public var maxResolution: String?
            enum CodingKeys: String, CodingKey { case maxResolution = "MaxResolution" }
            /// Creates a resolution cap.
            public init(maxResolution: String? = nil) { self.maxResolution = maxResolution }
        }

        /// `{"MaxCount": 1...250}`.
        public struct Attendee: Codable, Sendable, Equatable {
            /// Most attendees the meeting admits.
            public var maxCount: Int?
            enum CodingKeys: String, CodingKey { case maxCount = "MaxCount" }
            /// Creates the attendee features.
            public init(maxCount: Int? = nil) { self.maxCount = maxCount }
        }

        /// Audio features.
        public var audio: Audio?
        /// Video resolution cap.
        public var video: Resolution?
        /// Content-share resolution cap.
        public var content: Resolution?
        /// Attendee cap.
        public var attendee: Attendee?

        enum CodingKeys: String, CodingKey {
            case audio = "Audio", video = "Video", content = "Content", attendee = "Attendee"
        }

        /// Creates a features value.
        public init(audio: Audio? = nil, video: Resolution? = nil, content: Resolution? = nil, attendee: Attendee? = nil) {
            self.audio = audio
            self.video = video
            self.content = content
            self.attendee = attendee
        }
    }
}
