import CarillonProtocol

/// Ends live signaling sessions when the control API deletes their meeting or attendee, and applies changed
/// capabilities to them.
struct LiveMeetingTerminator: MeetingLifecycleObserver {
    let rooms: MeetingRooms

    func meetingDeleted(meetingId: String) { rooms.endMeeting(meetingId) }

    func attendeeDeleted(meetingId: String, attendeeId: String) {
        rooms.removeAttendee(meetingId: meetingId, attendeeId: attendeeId)
    }

    func meetingCreated(_ meeting: MeetingRecord) { rooms.events?.meetingCreated(meeting) }

    func attendeeCreated(_ attendee: AttendeeRecord) { rooms.events?.attendeeCreated(attendee) }

    func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities) {
        rooms.updateCapabilities(meetingId: meetingId, attendeeIds: attendeeIds, capabilities: capabilities)
    }
}
