extension ControlAPI {
    /// What a media capture pipeline records of a Chime SDK meeting (`ChimeSdkMeetingConfiguration`).
    public struct ChimeSdkMeetingConfiguration: Codable, Sendable, Equatable {
        /// Which cameras to record; all of them when absent.
        public var sourceConfiguration: SourceConfiguration?
        /// Which artifacts to write.
        public var artifactsConfiguration: ArtifactsConfiguration?

        enum CodingKeys: String, CodingKey {
            case sourceConfiguration = "SourceConfiguration"
            case artifactsConfiguration = "ArtifactsConfiguration"
        }

        /// Creates a value; every member is optional.
        public init(sourceConfiguration: SourceConfiguration? = nil, artifactsConfiguration: ArtifactsConfiguration? = nil) {
            self.sourceConfiguration = sourceConfiguration
            self.artifactsConfiguration = artifactsConfiguration
        }

        /// `SourceConfiguration`: the selected video streams.
        public struct SourceConfiguration: Codable, Sendable, Equatable {
            /// The cameras to record, by attendee id or ExternalUserId (at most 25 in all).
            public var selectedVideoStreams: SelectedVideoStreams?

            enum CodingKeys: String, CodingKey {
                case selectedVideoStreams = "SelectedVideoStreams"
            }

            /// Creates a value.
            public init(selectedVideoStreams: SelectedVideoStreams? = nil) {
                self.selectedVideoStreams = selectedVideoStreams
            }
        }

        /// `SelectedVideoStreams`: attendees whose cameras are recorded.
        public struct SelectedVideoStreams: Codable, Sendable, Equatable {
            /// Attendee ids.
            public var attendeeIds: [String]?
            /// ExternalUserIds.
            public var externalUserIds: [String]?

            enum CodingKeys: String, CodingKey {
                case attendeeIds = "AttendeeIds"
                case externalUserIds = "ExternalUserIds"
            }

            /// Creates a value.
            public init(attendeeIds: [String]? = nil, externalUserIds: [String]? = nil) {
                self.attendeeIds = attendeeIds
                self.externalUserIds = externalUserIds
            }
        }

        /// `ArtifactsConfiguration`: audio, video and content artifacts (all three required by the API).
        public struct ArtifactsConfiguration: Codable, Sendable, Equatable {
            /// The audio artifact: `MuxType` `AudioOnly` (the others composite video).
            public var audio: Artifact?
            /// The cameras: `State` `Enabled` or `Disabled`, `MuxType` `VideoOnly`.
            public var video: Artifact?
            /// The content shares: `State` `Enabled` or `Disabled`, `MuxType` `ContentOnly`.
            public var content: Artifact?
            /// Composited video, which this server does not make; present only to be refused.
            public var compositedVideo: Opaque?

            enum CodingKeys: String, CodingKey {
                case audio = "Audio"
                case video = "Video"
                case content = "Content"
                case compositedVideo = "CompositedVideo"
            }

            /// Creates a value.
            public init(audio: Artifact? = nil, video: Artifact? = nil, content: Artifact? = nil) {
                self.audio = audio
                self.video = video
                self.content = content
            }
        }

        /// One artifact's settings: `State` and `MuxType` (audio has only the latter).
        public struct Artifact: Codable, Sendable, Equatable {
            /// `Enabled` or `Disabled`.
            public var state: String?
            /// How it is muxed (`AudioOnly`, `VideoOnly`, `ContentOnly`).
            public var muxType: String?

            enum CodingKeys: String, CodingKey {
                case state = "State"
                case muxType = "MuxType"
            }

            /// Creates a value.
            public init(state: String? = nil, muxType: String? = nil) {
                self.state = state
                self.muxType = muxType
            }
        }

        /// Any JSON value, read only to notice that it was sent.
        public struct Opaque: Codable, Sendable, Equatable {
            /// An empty value.
            public init() {}
            /// Accepts whatever the member holds.
            public init(from decoder: any Decoder) throws {}
            /// Writes an empty object.
            public func encode(to encoder: any Encoder) throws {
                _ = encoder.container(keyedBy: CodingKeys.self)
            }
            private enum CodingKeys: CodingKey {}
        }
    }
}
