/// The service URLs of a session, already passed through the URL rewriter.
public final class MeetingSessionURLs: Codable, Sendable {
    /// Audio fallback URL.
    public let audioFallbackUrl: String
    /// Audio (media) host.
    public let audioHostUrl: String
    /// Legacy TURN control URL.
    public let turnControlUrl: String
    /// Signaling WebSocket URL.
    public let signalingUrl: String
    /// Event ingestion URL, if any.
    public let ingestionUrl: String?

    /// Creates URLs, applying `urlRewriter` to each.
    public convenience init(audioFallbackUrl: String, audioHostUrl: String, turnControlUrl: String, signalingUrl: String,
                            urlRewriter: @escaping URLRewriter) {
        self.init(audioFallbackUrl: audioFallbackUrl, audioHostUrl: audioHostUrl, turnControlUrl: turnControlUrl,
                  signalingUrl: signalingUrl, urlRewriter: urlRewriter, ingestionUrl: nil)
    }

    /// Creates URLs including the ingestion URL, applying `urlRewriter` to each.
    public init(audioFallbackUrl: String, audioHostUrl: String, turnControlUrl: String, signalingUrl: String,
                urlRewriter: @escaping URLRewriter, ingestionUrl: String?) {
        self.audioFallbackUrl = urlRewriter(audioFallbackUrl)
        self.audioHostUrl = urlRewriter(audioHostUrl)
        self.turnControlUrl = urlRewriter(turnControlUrl)
        self.signalingUrl = urlRewriter(signalingUrl)
        self.ingestionUrl = ingestionUrl.map(urlRewriter)
    }
}
