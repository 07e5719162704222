import CarillonProtocol

/// Told about control-API changes that affect live sessions, after they are stored.
public protocol MeetingLifecycleObserver: Sendable {
    /// The meeting was deleted: end its live sessions.
    func meetingDeleted(meetingId: String)
    /// The attendee was deleted: end its live sessions.
    func attendeeDeleted(meetingId: String, attendeeId: String)
    /// Attendees' capabilities changed (they take effect on media at the next renegotiation).
    func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities)
    /// A meeting was created (not an idempotent repeat).
    func meetingCreated(_ meeting: MeetingRecord)
    /// An attendee was created (not a repeat of its ExternalUserId).
    func attendeeCreated(_ attendee: AttendeeRecord)
}

extension MeetingLifecycleObserver {
    /// Nothing, by default.
    public func meetingCreated(_ meeting: MeetingRecord) {}
    /// Nothing, by default.
    public func attendeeCreated(_ attendee: AttendeeRecord) {}
}
