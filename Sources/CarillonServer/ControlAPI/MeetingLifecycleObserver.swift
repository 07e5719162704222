import CarillonProtocol

/// Told about control-API changes that affect live sessions, after they are stored.
public protocol MeetingLifecycleObserver: Sendable {
    /// The meeting was deleted: end its live sessions.
    func meetingDeleted(meetingId: String)
    /// The attendee was deleted: end its live sessions.
    func attendeeDeleted(meetingId: String, attendeeId: String)
    /// Attendees' capabilities changed (they take effect on media at the next renegotiation).
    func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities)
}
