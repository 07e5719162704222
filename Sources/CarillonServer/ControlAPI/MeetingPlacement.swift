import CarillonProtocol

/// Decides where a meeting's media lives and fills in its MediaPlacement URLs.
///
/// One server places every meeting on itself (``LocalMeetingPlacement``); a scale-out deployment places meetings on
/// media nodes here without touching the handler.
public protocol MeetingPlacement: Sendable {
    /// The eight MediaPlacement URLs of `meetingId`.
    func mediaPlacement(meetingId: String) -> ControlAPI.MediaPlacement
}
