import CarillonProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CarillonServer

/// The control-API handler against an in-memory store: shapes, validation classes, idempotency, limits, lifecycle.
@Suite struct ControlAPIHandlerTests {
    final class Recorder: MeetingLifecycleObserver {
        let events = NIOLockedValueBox<[String]>([])
        func meetingDeleted(meetingId: String) { events.withLockedValue { $0.append("meeting \(meetingId)") } }
        func attendeeDeleted(meetingId: String, attendeeId: String) { events.withLockedValue { $0.append("attendee \(attendeeId)") } }
        func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities) {
            events.withLockedValue { $0.append("capabilities \(attendeeIds.count)") }
        }
    }

    let recorder = Recorder()
    let handler: ControlAPIHandler

    init() throws {
        handler = ControlAPIHandler(
            store: try SQLiteMeetingStore.inMemory(),
            placement: LocalMeetingPlacement(host: "127.0.0.1", httpPort: 8080, mediaPort: 3478),
            accountId: "111122223333",
            issueJoinToken: { meetingId, attendeeId in "tok" + (meetingId + attendeeId).filter(\.isHexDigit) },
            lifecycle: recorder
        )
    }

    func call(_ method: String, _ path: String, query: String = "", json: String? = nil, key: String = "AKIA1") async -> ControlAPIResponse {
        await handler.handle(ControlAPIRequest(method: method, rawPath: path, rawQuery: query, body: Array((json ?? "").utf8),
                                               accessKeyId: key))
    }

    func object(_ response: ControlAPIResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    func createMeeting(_ extra: String = "", token: String = UUID().uuidString) async throws -> String {
        let response = await call("POST", "/meetings", json: #"{"ClientRequestToken":"\#(token)","MediaRegion":"us-east-1","ExternalMeetingId":"ext-1"\#(extra)}"#)
        #expect(response.status == 200)
        return try #require((try object(response)["Meeting"] as? [String: Any])?["MeetingId"] as? String)
    }

    @Test func createMeetingAnswersTheModeledShape() async throws {
        let response = await call("POST", "/meetings", json: #"{"ClientRequestToken":"tok-1","MediaRegion":"eu-west-1","ExternalMeetingId":"standup"}"#)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("x-amzn-RequestId")?.count == 36)
        let meeting = try #require(try object(response)["Meeting"] as? [String: Any])
        #expect(Set(meeting.keys) == ["MeetingId", "ExternalMeetingId", "MediaRegion", "MediaPlacement", "MeetingFeatures", "MeetingArn"])
        let id = try #require(meeting["MeetingId"] as? String)
        #expect(ControlAPIValidation.isGuid(id) && id == id.lowercased())
        #expect(meeting["MeetingArn"] as? String == "arn:aws:chime:eu-west-1:111122223333:meeting/\(id)")
        let placement = try #require(meeting["MediaPlacement"] as? [String: String])
        #expect(placement.count == 8)
        #expect(placement["SignalingUrl"] == "ws://127.0.0.1:8080/control/\(id)")
        let features = try #require(meeting["MeetingFeatures"] as? [String: [String: Any]])
        #expect(features["Video"]?["MaxResolution"] as? String == "HD")
        #expect(features["Attendee"]?["MaxCount"] as? Int == 250)
    }

    @Test func errorsCarryTheShapeHeaderAndBody() async throws {
        let response = await call("GET", "/meetings/\(UUID().uuidString.lowercased())")
        #expect(response.status == 404)
        #expect(response.header("x-amzn-ErrorType") == "NotFoundException")
        let body = try object(response)
        #expect(body["Code"] as? String == "NotFound")
        #expect(body["RequestId"] as? String == response.header("x-amzn-RequestId"))
        #expect((await call("PATCH", "/meetings")).status == 404)
    }

    @Test(arguments: [
        #"{"ClientRequestToken":"x","MediaRegion":"us-east-1"}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","ExternalMeetingId":"a"}"#,
        #"{"ClientRequestToken":"bad token!","MediaRegion":"us-east-1"}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","ExternalMeetingId":"AWS:meeting"}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","MeetingFeatures":{"Content":{"MaxResolution":"UHD"}}}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","TenantIds":["ab!!!!"]}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","Tags":[{"Key":"k>","Value":"v"}]}"#,
        #"{"ClientRequestToken":"ok-token","MediaRegion":"us-east-1","MediaPlacementNetworkType":"Ipv6Only"}"#,
        #"{"ClientRequestToken":5}"#,
        #"not json"#,
    ])
    func invalidCreateMeetingBodiesAreBadRequests(body: String) async throws {
        let response = await call("POST", "/meetings", json: body)
        #expect(response.status == 400)
        #expect(response.header("x-amzn-ErrorType") == "BadRequestException")
        #expect((try object(response)["Message"] as? String)?.isEmpty == false)
    }

    @Test func tagKeysFollowTheModelsRangeQuirk() throws {
        // `+-=` in the class is the range 0x2B-0x3D: digits, `,`, `;` and `<` pass too.
        for key in ["a,b", "k;1", "x<y", "a+b=c"] { try ControlAPIValidation.tagKey(key) }
        for key in ["a b", "k>", "a@b", ""] { #expect(throws: ControlAPIError.self) { try ControlAPIValidation.tagKey(key) } }
    }

    @Test func externalUserIdCharacterSet() throws {
        try ControlAPIValidation.externalId("Zoë Smith «x»", "ExternalUserId")
        try ControlAPIValidation.externalId("user@example.com (1)", "ExternalUserId")
        for bad in ["a", "bad<name>", "ok\u{0100}", "aws:x", String(repeating: "x", count: 65)] {
            #expect(throws: ControlAPIError.self) { try ControlAPIValidation.externalId(bad, "ExternalUserId") }
        }
    }

    @Test func tokenIdempotencyIsPerCallerAndParameterSensitive() async throws {
        let first = try await createMeeting(token: "same-token")
        #expect(try await createMeeting(token: "same-token") == first)
        let otherCaller = await call("POST", "/meetings", json: #"{"ClientRequestToken":"same-token","MediaRegion":"us-east-1","ExternalMeetingId":"ext-1"}"#, key: "AKIA2")
        #expect((try object(otherCaller)["Meeting"] as? [String: Any])?["MeetingId"] as? String != first)
        let changed = await call("POST", "/meetings", json: #"{"ClientRequestToken":"same-token","MediaRegion":"us-west-2","ExternalMeetingId":"ext-1"}"#)
        #expect(changed.status == 400)
    }

    @Test func attendeesAreIdempotentByExternalUserIdAndCapped() async throws {
        let meeting = try await createMeeting(#","MeetingFeatures":{"Attendee":{"MaxCount":2}}"#)
        let first = try object(await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"alice"}"#))
        let again = try object(await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"alice"}"#))
        #expect((first["Attendee"] as? [String: Any])?["AttendeeId"] as? String == (again["Attendee"] as? [String: Any])?["AttendeeId"] as? String)
        #expect((await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"bob"}"#)).status == 200)
        let third = await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"carol"}"#)
        #expect(third.status == 400)
        #expect(third.header("x-amzn-ErrorType") == "LimitExceededException")
    }

    @Test func listAttendeesPagesInCreationOrder() async throws {
        let meeting = try await createMeeting()
        for index in 0..<5 { _ = await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"user-\#(index)"}"#) }
        var names: [String] = []
        var token: String?
        repeat {
            let query = "max-results=2" + (token.map { "&next-token=\($0)" } ?? "")
            let page = try object(await call("GET", "/meetings/\(meeting)/attendees", query: query))
            names += (page["Attendees"] as? [[String: Any]] ?? []).compactMap { $0["ExternalUserId"] as? String }
            token = page["NextToken"] as? String
        } while token != nil
        #expect(names == ["user-0", "user-1", "user-2", "user-3", "user-4"])
        #expect((await call("GET", "/meetings/\(meeting)/attendees", query: "max-results=0")).status == 400)
        #expect((await call("GET", "/meetings/\(meeting)/attendees", query: "next-token=zzz")).status == 400)
    }

    /// ListMeetings pages like ListAttendees (it rendered every meeting of the server in one response).
    @Test func listMeetingsPagesInCreationOrder() async throws {
        var created: [String] = []
        for _ in 0..<5 { created.append(try await createMeeting()) }
        var ids: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let query = "max-results=2" + (token.map { "&next-token=\($0)" } ?? "")
            let page = try object(await call("GET", "/meetings", query: query))
            let meetings = page["Meetings"] as? [[String: Any]] ?? []
            #expect(meetings.count <= 2)
            ids += meetings.compactMap { $0["MeetingId"] as? String }
            token = page["NextToken"] as? String
            pages += 1
        } while token != nil
        #expect(ids == created && pages == 3)
        let all = try object(await call("GET", "/meetings"))
        #expect((all["Meetings"] as? [[String: Any]])?.count == 5 && all["NextToken"] == nil)
        #expect((await call("GET", "/meetings", query: "max-results=101")).status == 400)
        #expect((await call("GET", "/meetings", query: "next-token=p-1")).status == 400)
    }

    @Test func capabilityRules() async throws {
        let noVideo = try await createMeeting(#","MeetingFeatures":{"Video":{"MaxResolution":"None"}}"#)
        let defaulted = try object(await call("POST", "/meetings/\(noVideo)/attendees", json: #"{"ExternalUserId":"viewer"}"#))
        #expect((defaulted["Attendee"] as? [String: Any])?["Capabilities"] as? [String: String]
            == ["Audio": "SendReceive", "Video": "Receive", "Content": "SendReceive"])
        let explicit = await call("POST", "/meetings/\(noVideo)/attendees",
                                  json: #"{"ExternalUserId":"cam","Capabilities":{"Audio":"SendReceive","Video":"Send","Content":"None"}}"#)
        #expect(explicit.status == 400)
        let meeting = try await createMeeting()
        let partial = await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"p1","Capabilities":{"Audio":"Send"}}"#)
        #expect(partial.status == 400)
    }

    @Test func deletesReachTheLifecycleObserverAndRevokeAccess() async throws {
        let meeting = try await createMeeting()
        let attendee = try #require((try object(await call("POST", "/meetings/\(meeting)/attendees", json: #"{"ExternalUserId":"gone"}"#))["Attendee"]
            as? [String: Any])?["AttendeeId"] as? String)
        #expect((await call("DELETE", "/meetings/\(meeting)/attendees/\(attendee)")).status == 204)
        #expect((await call("GET", "/meetings/\(meeting)/attendees/\(attendee)")).status == 404)
        #expect((await call("DELETE", "/meetings/\(meeting)")).status == 204)
        #expect(recorder.events.withLockedValue { $0 } == ["attendee \(attendee)", "meeting \(meeting)"])
    }

    @Test func transcriptionIsValidatedThenRefused() async throws {
        let meeting = try await createMeeting()
        let valid = await call("POST", "/meetings/\(meeting)/transcription", query: "operation=start",
                               json: #"{"TranscriptionConfiguration":{"EngineTranscribeSettings":{"LanguageCode":"en-US"}}}"#)
        #expect(valid.status == 422)
        let conflicting = await call("POST", "/meetings/\(meeting)/transcription", query: "operation=start",
                                     json: #"{"TranscriptionConfiguration":{"EngineTranscribeSettings":{"LanguageCode":"en-US","ContentIdentificationType":"PII","ContentRedactionType":"PII"}}}"#)
        #expect(conflicting.status == 400)
        #expect((await call("POST", "/meetings/\(meeting)/transcription", query: "operation=stop")).status == 422)
    }

    @Test func tagsAreCappedAtFifty() async throws {
        let meeting = try await createMeeting()
        let arn = "arn:aws:chime:us-east-1:111122223333:meeting/\(meeting)"
        let tags = (0..<50).map { #"{"Key":"k\#($0)","Value":"v"}"# }.joined(separator: ",")
        #expect((await call("POST", "/tags", query: "operation=tag-resource", json: #"{"ResourceARN":"\#(arn)","Tags":[\#(tags)]}"#)).status == 204)
        let oneMore = await call("POST", "/tags", query: "operation=tag-resource", json: #"{"ResourceARN":"\#(arn)","Tags":[{"Key":"extra","Value":"v"}]}"#)
        #expect(oneMore.header("x-amzn-ErrorType") == "TooManyTagsException")
        let foreign = await call("GET", "/tags", query: "arn=arn%3Aaws%3Achime%3Aus-east-1%3A999999999999%3Ameeting%2F\(meeting)")
        #expect(foreign.header("x-amzn-ErrorType") == "ResourceNotFoundException")
    }
}
