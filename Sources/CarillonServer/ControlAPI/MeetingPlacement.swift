import CarillonProtocol

/// Decides where a meeting's media lives and fills in its MediaPlacement URLs.
///
/// One server places every meeting on itself (``LocalMeetingPlacement``); a cluster's node places meetings on the
/// cluster's nodes (``ClusterMeetingPlacement``) without touching the handler.
public protocol MeetingPlacement: Sendable {
    /// The MediaPlacement of a meeting being created (or created again by an idempotent retry): a cluster places it
    /// on a node first, or keeps it where it is.
    func place(meetingId: String) async throws -> ControlAPI.MediaPlacement
    /// The MediaPlacement of existing meetings, by id; never places one.
    func mediaPlacements(meetingIds: [String]) async throws -> [String: ControlAPI.MediaPlacement]
}
