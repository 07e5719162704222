import CarillonProtocol
import NIOConcurrencyHelpers

/// Places every meeting on this server: URLs built from its advertised host, HTTP port and media port, with `https`
/// and `wss` when the server serves TLS itself, or from a public endpoint when a reverse proxy stands in front.
///
/// The HTTP port can be set once the listener is bound (port 0 picks a free port).
public final class LocalMeetingPlacement: MeetingPlacement {
    private let host: String
    private let mediaPort: Int
    private let secure: Bool
    private let publicEndpoint: String?
    private let httpPort: NIOLockedValueBox<Int>

    /// Creates a placement for `host` (as clients reach it), the HTTP port and the media UDP port; `secure` writes
    /// `https`/`wss` URLs; `publicEndpoint` (a base URL such as `https://meet.example.com`), when given, replaces
    /// scheme, host and HTTP port in every URL but the media one.
    public init(host: String, httpPort: Int, mediaPort: Int, secure: Bool = false, publicEndpoint: String? = nil) {
        self.host = host
        self.mediaPort = mediaPort
        self.secure = secure
        self.publicEndpoint = publicEndpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.httpPort = NIOLockedValueBox(httpPort)
    }

    /// Records the port the listener actually bound.
    public func setHTTPPort(_ port: Int) { httpPort.withLockedValue { $0 = port } }

    /// This server's media address, as clients reach it (`host:port`).
    public var mediaAddress: String { "\(host):\(mediaPort)" }

    /// Where clients reach this server's HTTP port: the public endpoint, else `http(s)://host:port`.
    public var baseURL: String {
        if let publicEndpoint { return publicEndpoint }
        let port = httpPort.withLockedValue { $0 }
        return "\(secure ? "https" : "http")://\(host):\(port)"
    }

    /// The WebSocket URL of an `http(s)://` URL (`ws://` or `wss://`, the rest unchanged).
    public static func webSocketURL(_ http: String) -> String {
        if http.hasPrefix("https://") { return "wss://" + http.dropFirst("https://".count) }
        if http.hasPrefix("http://") { return "ws://" + http.dropFirst("http://".count) }
        return http
    }

    /// See ``MeetingPlacement``: on this server.
    public func place(meetingId: String) async throws -> ControlAPI.MediaPlacement {
        mediaPlacement(meetingId: meetingId, mediaAddress: mediaAddress)
    }

    /// See ``MeetingPlacement``: on this server.
    public func mediaPlacements(meetingIds: [String]) async throws -> [String: ControlAPI.MediaPlacement] {
        Dictionary(uniqueKeysWithValues: meetingIds.map { ($0, mediaPlacement(meetingId: $0, mediaAddress: mediaAddress)) })
    }

    /// The MediaPlacement of `meetingId` with its media at `mediaAddress` (`host:port`: this server's, or in a
    /// cluster the hosting node's) and every other URL at this server or its public endpoint.
    public func mediaPlacement(meetingId: String, mediaAddress: String) -> ControlAPI.MediaPlacement {
        let http = baseURL
        let ws = Self.webSocketURL(http)
        return ControlAPI.MediaPlacement(
            audioHostUrl: mediaAddress,
            audioFallbackUrl: "\(ws)/calls/\(meetingId)",
            signalingUrl: "\(ws)/control/\(meetingId)",
            turnControlUrl: "\(http)/calls/\(meetingId)/turn",
            screenDataUrl: "\(ws)/screen/\(meetingId)/data",
            screenViewingUrl: "\(ws)/screen/\(meetingId)/viewing",
            screenSharingUrl: "\(ws)/screen/\(meetingId)/sharing",
            eventIngestionUrl: "\(http)/events"
        )
    }
}
