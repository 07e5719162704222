import CarillonProtocol
import Logging

/// Ends live signaling sessions when the control API deletes their meeting or attendee, applies changed
/// capabilities to them, and logs at info what an operator follows a server by: meetings created and ended by
/// DeleteMeeting (expiry logs its own ends, with its reason), attendees created and deleted.
struct LiveMeetingTerminator: MeetingLifecycleObserver {
    let rooms: MeetingRooms
    let logger: Logger

    func meetingDeleted(meetingId: String) {
        logger.info("meeting ended", metadata: ["meeting": "\(meetingId)", "reason": "DeleteMeeting"])
        rooms.endMeeting(meetingId)
    }

    func attendeeDeleted(meetingId: String, attendeeId: String) {
        logger.info("attendee deleted", metadata: ["meeting": "\(meetingId)", "attendee": "\(attendeeId)"])
        rooms.removeAttendee(meetingId: meetingId, attendeeId: attendeeId)
    }

    func meetingCreated(_ meeting: MeetingRecord) {
        logger.info("meeting created", metadata: ["meeting": "\(meeting.meetingId)",
                                                  "externalMeetingId": "\(meeting.externalMeetingId ?? "")"])
        rooms.events?.meetingCreated(meeting)
    }

    func attendeeCreated(_ attendee: AttendeeRecord) {
        logger.info("attendee created", metadata: ["meeting": "\(attendee.meetingId)", "attendee": "\(attendee.attendeeId)",
                                                   "externalUserId": "\(attendee.externalUserId)"])
        rooms.events?.attendeeCreated(attendee)
    }

    func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities) {
        rooms.updateCapabilities(meetingId: meetingId, attendeeIds: attendeeIds, capabilities: capabilities)
    }
}
