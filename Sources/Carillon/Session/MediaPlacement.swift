/// The service URLs of a meeting, as CreateMeeting returns them. Decodable from the REST API's JSON.
public final class MediaPlacement: Decodable, Sendable {
    let audioFallbackUrl: String
    let audioHostUrl: String
    let signalingUrl: String
    let turnControlUrl: String
    let eventIngestionUrl: String?

    enum CodingKeys: String, CodingKey {
        case audioFallbackUrl = "AudioFallbackUrl", audioHostUrl = "AudioHostUrl", signalingUrl = "SignalingUrl"
        case turnControlUrl = "TurnControlUrl", eventIngestionUrl = "EventIngestionUrl"
    }

    /// Creates a placement without an ingestion URL.
    public convenience init(audioFallbackUrl: String, audioHostUrl: String, signalingUrl: String, turnControlUrl: String) {
        self.init(audioFallbackUrl: audioFallbackUrl, audioHostUrl: audioHostUrl, signalingUrl: signalingUrl,
                  turnControlUrl: turnControlUrl, eventIngestionUrl: nil)
    }

    /// Creates a placement.
    public init(audioFallbackUrl: String, audioHostUrl: String, signalingUrl: String, turnControlUrl: String,
                eventIngestionUrl: String?) {
        self.audioFallbackUrl = audioFallbackUrl
        self.audioHostUrl = audioHostUrl
        self.signalingUrl = signalingUrl
        self.turnControlUrl = turnControlUrl
        self.eventIngestionUrl = eventIngestionUrl
    }

    /// Decodes `MediaPlacement` from the API's JSON; absent URLs become empty strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        audioFallbackUrl = try container.decodeIfPresent(String.self, forKey: .audioFallbackUrl) ?? ""
        audioHostUrl = try container.decodeIfPresent(String.self, forKey: .audioHostUrl) ?? ""
        signalingUrl = try container.decodeIfPresent(String.self, forKey: .signalingUrl) ?? ""
        turnControlUrl = try container.decodeIfPresent(String.self, forKey: .turnControlUrl) ?? ""
        eventIngestionUrl = try container.decodeIfPresent(String.self, forKey: .eventIngestionUrl)
    }
}
