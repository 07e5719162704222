import CarillonProtocol

/// A control-API change to a live meeting that one node of a cluster stored and every node must apply to the
/// sessions it hosts (a DeleteMeeting sent to one node ends the meeting on the node that hosts it), sent as the JSON
/// payload of a PostgreSQL `NOTIFY` on ``ClusterMembership/channel``.
struct LiveMeetingChange: Codable, Sendable, Equatable {
    /// What changed.
    enum Kind: String, Codable, Sendable {
        case meetingDeleted, attendeeDeleted, capabilitiesChanged
        /// A media capture pipeline of the meeting was created or is stopping: its hosting node does what the store
        /// says (``MediaCapturePipelines/resume(meetingId:epoch:)``).
        case pipelinesChanged
    }

    /// PostgreSQL refuses a payload of 8000 bytes or more; a capabilities change names at most this many attendees
    /// per notification (36-character ids), and a larger batch is sent as several.
    static let attendeesPerNotification = 100

    /// The node that took the call (it applied the change itself, and announced it).
    var from: String
    var kind: Kind
    var meetingId: String
    var attendeeIds: [String]?
    var capabilities: ControlAPI.AttendeeCapabilities?
}
