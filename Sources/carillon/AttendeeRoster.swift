import CarillonControlClient
import CarillonProtocol
import Foundation

/// A meeting's attendees as `meeting get` and `attendee list` show them: every page of ListAttendees (what an SDK
/// app needs: AttendeeId, ExternalUserId, JoinToken, Capabilities) with each attendee's live state from Carillon's
/// extension `GET /carillon/meetings/{MeetingId}/attendees` (State, Since, Muted, Video, Content) merged in.
struct AttendeeRoster {
    /// One JSON object per attendee, ListAttendees' members and the live ones side by side, sorted by AttendeeId.
    let attendees: [[String: Any]]

    /// Reads both lists of `meetingId`.
    static func fetch(_ client: ControlAPIClient, meetingId: String) async throws -> AttendeeRoster {
        let path = "/meetings/\(ControlAPIClient.segment(meetingId))/attendees"
        var listed: [[String: Any]] = []
        var nextToken: String?
        repeat {
            var query = "max-results=100"
            if let token = nextToken { query += "&next-token=\(ControlAPIClient.segment(token))" }
            let page = try JSONSerialization.jsonObject(with: try await client.send("GET", path, query: query)) as? [String: Any]
            listed += page?["Attendees"] as? [[String: Any]] ?? []
            nextToken = page?["NextToken"] as? String
        } while nextToken != nil
        let live = try JSONDecoder().decode(
            ControlAPI.LiveAttendeesResponse.self,
            from: try await client.send("GET", "/carillon/meetings/\(ControlAPIClient.segment(meetingId))/attendees"))
        let states = Dictionary((live.attendees ?? []).compactMap { state in state.attendeeId.map { ($0, state) } },
                                uniquingKeysWith: { first, _ in first })
        let merged = listed.map { attendee -> [String: Any] in
            var object = attendee
            guard let id = attendee["AttendeeId"] as? String, let state = states[id] else {
                object["State"] = "not-joined"
                return object
            }
            object["State"] = state.state ?? "not-joined"
            if let since = state.since { object["Since"] = since }
            object["Muted"] = state.muted ?? false
            object["Video"] = state.video ?? false
            object["Content"] = state.content ?? false
            return object
        }
        return AttendeeRoster(attendees: merged.sorted {
            ($0["AttendeeId"] as? String ?? "") < ($1["AttendeeId"] as? String ?? "")
        })
    }

    /// One readable line per attendee: `Attendee: <id> <ExternalUserId> <state> since <time>, muted, video, content`
    /// (only what holds).
    var lines: [String] {
        attendees.map { attendee in
            var line = "Attendee: \(attendee["AttendeeId"] as? String ?? "") \(attendee["ExternalUserId"] as? String ?? "")"
            line += " \(attendee["State"] as? String ?? "not-joined")"
            if let since = attendee["Since"] as? String { line += " since \(since)" }
            for flag in ["Muted", "Video", "Content"] where attendee[flag] as? Bool == true { line += ", \(flag.lowercased())" }
            return line
        }
    }

    /// A summary line: how many attendees, how many in the meeting now.
    var summary: String {
        let present = attendees.count { ["joined", "reconnecting"].contains($0["State"] as? String ?? "") }
        return "Attendees: \(attendees.count) (\(present) in the meeting now)"
    }
}
