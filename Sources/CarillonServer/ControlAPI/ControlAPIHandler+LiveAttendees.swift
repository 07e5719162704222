import CarillonProtocol
import Foundation

extension ControlAPIHandler {
    /// Carillon's extension `GET /carillon/meetings/{MeetingId}/attendees`: every stored attendee (all pages of
    /// ListAttendees in one answer; a meeting holds at most 250), each with what the live room knows of it, or
    /// `not-joined`.
    func listLiveAttendees(_ meetingId: String) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        var stored: [AttendeeRecord] = []
        var after: Int64 = 0
        while true {
            let page = try await store.attendees(meetingId: meeting.meetingId, after: after, limit: 250)
            stored += page
            guard page.count == 250, let last = page.last else { break }
            after = last.sequence
        }
        let states = try await live?.liveAttendees(meetingId: meeting.meetingId) ?? []
        let byId = Dictionary(states.map { ($0.attendeeId, $0) }, uniquingKeysWith: { first, _ in first })
        let attendees = stored.sorted { $0.attendeeId < $1.attendeeId }.map { record -> ControlAPI.LiveAttendee in
            guard let state = byId[record.attendeeId] else {
                return ControlAPI.LiveAttendee(attendeeId: record.attendeeId, externalUserId: record.externalUserId,
                                               state: "not-joined", muted: false, video: false, content: false)
            }
            let since = Date(timeIntervalSince1970: Double(state.sinceUnixNanoseconds) / 1e9)
            return ControlAPI.LiveAttendee(attendeeId: record.attendeeId, externalUserId: record.externalUserId,
                                           state: state.presence.rawValue, since: since.formatted(Self.timestampFormat),
                                           muted: state.muted, video: state.video, content: state.content)
        }
        return (200, try encode(ControlAPI.LiveAttendeesResponse(attendees: attendees)))
    }
}
