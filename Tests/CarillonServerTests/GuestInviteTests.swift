import CarillonProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CarillonServer

/// Guest invites through the control-API handler against an in-memory store, on a clock the test sets: making an
/// invite (signed), redeeming it (no signature: the invite is the credential), and every way a redemption is refused.
@Suite struct GuestInviteTests {
    let clock = NIOLockedValueBox<Int64>(1_800_000_000)
    let secret = try! JoinTokenSecret(hex: String(repeating: "5a", count: 32))
    let handler: ControlAPIHandler

    init() throws {
        let clock = clock
        handler = ControlAPIHandler(
            store: try SQLiteMeetingStore.inMemory(),
            placement: LocalMeetingPlacement(host: "127.0.0.1", httpPort: 8080, mediaPort: 3478),
            issueJoinToken: { meetingId, attendeeId in "tok" + (meetingId + attendeeId).filter(\.isHexDigit) },
            invites: GuestInvites(secret: secret, baseURL: { "https://meet.example.com" }, now: { clock.withLockedValue { $0 } })
        )
    }

    func call(_ method: String, _ path: String, json: String = "") async -> ControlAPIResponse {
        await handler.handle(ControlAPIRequest(method: method, rawPath: path, rawQuery: "", body: Array(json.utf8), accessKeyId: "AKIA1"))
    }

    func object(_ response: ControlAPIResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func createMeeting(limit: Int? = nil) async throws -> String {
        let features = limit.map { #","MeetingFeatures":{"Attendee":{"MaxCount":\#($0)}}"# } ?? ""
        let response = await call("POST", "/meetings", json: #"{"ClientRequestToken":"\#(UUID().uuidString)","MediaRegion":"us-east-1","ExternalMeetingId":"standup"\#(features)}"#)
        #expect(response.status == 200)
        return try #require((try object(response)["Meeting"] as? [String: Any])?["MeetingId"] as? String)
    }

    func invite(_ meetingId: String, json: String = "") async throws -> [String: Any] {
        let response = await call("POST", "/carillon/meetings/\(meetingId)/invites", json: json)
        #expect(response.status == 201)
        return try #require(try object(response)["Invite"] as? [String: Any])
    }

    func join(_ token: String, _ json: String) async throws -> (Int, [String: Any]) {
        let response = await handler.joinAsGuest(invite: token, body: Array(json.utf8))
        return (response.status, try object(response))
    }

    @Test func anInviteIsALinkToTheMeetingValidForADayByDefault() async throws {
        let meetingId = try await createMeeting()
        let invite = try await invite(meetingId)
        let token = try #require(invite["Token"] as? String)
        #expect(invite["MeetingId"] as? String == meetingId)
        #expect(invite["Url"] as? String == "https://meet.example.com/join/\(token)")
        #expect(invite["ExpiresAt"] as? String == "2027-01-16T08:00:00.000Z")
        #expect(InviteToken.verify(token, secret: secret, now: clock.withLockedValue { $0 })
                == .success(.init(meetingId: meetingId, expiresAt: 1_800_000_000 + 86_400)))
        let short = try await self.invite(meetingId, json: #"{"ExpiresInSeconds":60}"#)
        #expect(short["ExpiresAt"] as? String == "2027-01-15T08:01:00.000Z")
    }

    @Test(arguments: [#"{"ExpiresInSeconds":0}"#, #"{"ExpiresInSeconds":2592001}"#, #"{"ExpiresInSeconds":"soon"}"#])
    func anInviteLifetimeOutOfRangeIsABadRequest(json: String) async throws {
        let meetingId = try await createMeeting()
        let response = await call("POST", "/carillon/meetings/\(meetingId)/invites", json: json)
        #expect(response.status == 400)
        #expect(try object(response)["Code"] as? String == "BadRequest")
    }

    @Test func noInviteForAMeetingThatDoesNotExist() async throws {
        #expect(await call("POST", "/carillon/meetings/\(UUID().uuidString.lowercased())/invites").status == 404)
        #expect(ControlAPIHandler.operation(of: ControlAPIRequest(method: "POST", rawPath: "/carillon/meetings/x/invites",
                                                                  rawQuery: "", body: [], accessKeyId: "")) == .createInvite)
    }

    @Test func aGuestJoinsAsANewAttendeeWhoseExternalUserIdCarriesTheName() async throws {
        let meetingId = try await createMeeting()
        let token = try #require(try await invite(meetingId)["Token"] as? String)
        let (status, body) = try await join(token, #"{"Name":"  Ada Lovelace "}"#)
        #expect(status == 200)
        let info = try #require(body["JoinInfo"] as? [String: Any])
        let meeting = try #require(info["Meeting"] as? [String: Any])
        let attendee = try #require(info["Attendee"] as? [String: Any])
        #expect(meeting["MeetingId"] as? String == meetingId)
        #expect((meeting["MediaPlacement"] as? [String: String])?["SignalingUrl"] == "ws://127.0.0.1:8080/control/\(meetingId)")
        let external = try #require(attendee["ExternalUserId"] as? String)
        #expect(external.count == 9 + "Ada Lovelace".count && external.hasSuffix("#Ada Lovelace"))
        #expect(external.prefix(8).allSatisfy { $0.isHexDigit })
        let attendeeId = try #require(attendee["AttendeeId"] as? String)
        #expect(attendee["JoinToken"] as? String == "tok" + (meetingId + attendeeId).filter(\.isHexDigit))
        // The same name twice is two guests, and both are the meeting's attendees.
        let (_, second) = try await join(token, #"{"Name":"Ada Lovelace"}"#)
        let secondId = try #require(((second["JoinInfo"] as? [String: Any])?["Attendee"] as? [String: Any])?["AttendeeId"] as? String)
        #expect(secondId != attendeeId)
        let listed = try #require(try object(await call("GET", "/meetings/\(meetingId)/attendees"))["Attendees"] as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["AttendeeId"] as? String }) == [attendeeId, secondId])
    }

    @Test(arguments: [
        (#"{"Name":""}"#, "Please enter your name."), (#"{"Name":"   "}"#, "Please enter your name."), ("{}", "Please enter your name."),
        (#"{"Name":"\#(String(repeating: "a", count: 56))"}"#, "at most 55 characters"),
        (#"{"Name":"Ada\u0007"}"#, "control characters"), (#"{"Name":"Ada 😀"}"#, "not allowed"),
        (#"{"Name":7}"#, "wrong JSON type"), ("not json", "not a valid JSON object"),
    ])
    func aBadNameIsABadRequestAndCreatesNobody(json: String, message: String) async throws {
        let meetingId = try await createMeeting()
        let token = try #require(try await invite(meetingId)["Token"] as? String)
        let (status, body) = try await join(token, json)
        #expect(status == 400)
        #expect((body["Message"] as? String)?.contains(message) == true, "\(body)")
        let listed = try object(await call("GET", "/meetings/\(meetingId)/attendees"))["Attendees"] as? [[String: Any]]
        #expect(listed?.isEmpty == true)
    }

    @Test func anExpiredForgedOrEndedInviteAdmitsNobody() async throws {
        let meetingId = try await createMeeting()
        let token = try #require(try await invite(meetingId, json: #"{"ExpiresInSeconds":60}"#)["Token"] as? String)
        clock.withLockedValue { $0 += 60 }
        let (expired, expiredBody) = try await join(token, #"{"Name":"Ada"}"#)
        #expect(expired == 410 && expiredBody["Code"] as? String == "Gone")
        clock.withLockedValue { $0 -= 1 }
        #expect(try await join(token, #"{"Name":"Ada"}"#).0 == 200)

        var forged = Array(token)
        forged[forged.count - 1] = forged.last == "0" ? "1" : "0"
        #expect(try await join(String(forged), #"{"Name":"Ada"}"#).0 == 403)
        #expect(try await join("not-an-invite", #"{"Name":"Ada"}"#).0 == 403)
        let otherServer = InviteToken.issue(meetingId: meetingId, expiresAt: 1_900_000_000,
                                            secret: try JoinTokenSecret(hex: String(repeating: "77", count: 32)))
        #expect(try await join(otherServer, #"{"Name":"Ada"}"#).0 == 403)

        #expect(await call("DELETE", "/meetings/\(meetingId)").status == 204)
        let (ended, endedBody) = try await join(token, #"{"Name":"Ada"}"#)
        #expect(ended == 404 && endedBody["Message"] as? String == "This meeting has ended.")
    }

    @Test func guestsCountTowardsTheMeetingsAttendeeLimit() async throws {
        let meetingId = try await createMeeting(limit: 2)
        let token = try #require(try await invite(meetingId)["Token"] as? String)
        #expect(try await join(token, #"{"Name":"One"}"#).0 == 200)
        #expect(try await join(token, #"{"Name":"Two"}"#).0 == 200)
        let (status, body) = try await join(token, #"{"Name":"Three"}"#)
        #expect(status == 400 && body["Code"] as? String == "ResourceLimitExceeded")
    }

    @Test func aServerWithoutInvitesRefusesBoth() async throws {
        let plain = ControlAPIHandler(store: try SQLiteMeetingStore.inMemory(),
                                      placement: LocalMeetingPlacement(host: "127.0.0.1", httpPort: 8080, mediaPort: 3478),
                                      issueJoinToken: { _, _ in "tok" })
        let created = await plain.handle(ControlAPIRequest(method: "POST", rawPath: "/meetings", rawQuery: "",
            body: Array(#"{"ClientRequestToken":"abc","MediaRegion":"us-east-1"}"#.utf8), accessKeyId: "A"))
        let meetingId = try #require((try object(created)["Meeting"] as? [String: Any])?["MeetingId"] as? String)
        let response = await plain.handle(ControlAPIRequest(method: "POST", rawPath: "/carillon/meetings/\(meetingId)/invites",
                                                            rawQuery: "", body: [], accessKeyId: "A"))
        #expect(response.status == 422)
        let token = InviteToken.issue(meetingId: meetingId, expiresAt: 1_900_000_000, secret: secret)
        #expect(await plain.joinAsGuest(invite: token, body: Array(#"{"Name":"Ada"}"#.utf8)).status == 404)
    }
}
