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
        let http: String, ws: String
        if let publicEndpoint {
            http = publicEndpoint
            ws = publicEndpoint.hasPrefix("https://") ? "wss://" + publicEndpoint.dropFirst("https://".count)
                : "ws://" + publicEndpoint.dropFirst("http://".count)
        } else {
            let port = httpPort.withLockedValue { $0 }
            http = "\(secure ? "https" : "http")://\(host):\(port)"
            ws = "\(secure ? "wss" : "ws")://\(host):\(port)"
        }
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
