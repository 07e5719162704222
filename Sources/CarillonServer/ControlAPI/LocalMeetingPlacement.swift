import CarillonProtocol
import NIOConcurrencyHelpers

/// Places every meeting on this server: URLs built from its advertised host, HTTP port and media port.
///
/// The HTTP port can be set once the listener is bound (port 0 picks a free port).
public final class LocalMeetingPlacement: MeetingPlacement {
    private let host: String
    private let mediaPort: Int
    private let httpPort: NIOLockedValueBox<Int>

    /// Creates a placement for `host` (as clients reach it), the HTTP port and the media UDP port.
    public init(host: String, httpPort: Int, mediaPort: Int) {
        self.host = host
        self.mediaPort = mediaPort
        self.httpPort = NIOLockedValueBox(httpPort)
    }

    /// Records the port the listener actually bound.
    public func setHTTPPort(_ port: Int) { httpPort.withLockedValue { $0 = port } }

    /// See ``MeetingPlacement``.
    public func mediaPlacement(meetingId: String) -> ControlAPI.MediaPlacement {
        let port = httpPort.withLockedValue { $0 }
        let http = "http://\(host):\(port)", ws = "ws://\(host):\(port)"
        return ControlAPI.MediaPlacement(
            audioHostUrl: "\(host):\(mediaPort)",
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
