extension ControlAPI {
    /// The endpoints clients connect to for one meeting.
    public struct MediaPlacement: Codable, Sendable, Equatable {
        /// Media host and UDP port.
        public var audioHostUrl: String?
        /// Audio fallback URL.
        public var audioFallbackUrl: String?
        /// Signaling WebSocket URL (`.../control/<MeetingId>`).
        public var signalingUrl: String?
        /// Legacy TURN control URL.
        public var turnControlUrl: String?
        /// Deprecated screen data URL.
        public var screenDataUrl: String?
        /// Deprecated screen viewing URL.
        public var screenViewingUrl: String?
        /// Deprecated screen sharing URL.
        public var screenSharingUrl: String?
        /// Where clients post meeting events.
        public var eventIngestionUrl: String?

        enum CodingKeys: String, CodingKey {
            case audioHostUrl = "AudioHostUrl"
            case audioFallbackUrl = "AudioFallbackUrl"
            case signalingUrl = "SignalingUrl"
            case turnControlUrl = "TurnControlUrl"
            case screenDataUrl = "ScreenDataUrl"
            case screenViewingUrl = "ScreenViewingUrl"
            case screenSharingUrl = "ScreenSharingUrl"
            case eventIngestionUrl = "EventIngestionUrl"
        }

        /// Creates a value; every member is optional.
        public init(audioHostUrl: String? = nil, audioFallbackUrl: String? = nil, signalingUrl: String? = nil, turnControlUrl: String? = nil, screenDataUrl: String? = nil, screenViewingUrl: String? = nil, screenSharingUrl: String? = nil, eventIngestionUrl: String? = nil) {
            self.audioHostUrl = audioHostUrl
            self.audioFallbackUrl = audioFallbackUrl
            self.signalingUrl = signalingUrl
            self.turnControlUrl = turnControlUrl
            self.screenDataUrl = screenDataUrl
            self.screenViewingUrl = screenViewingUrl
            self.screenSharingUrl = screenSharingUrl
            self.eventIngestionUrl = eventIngestionUrl
        }
    }
}
