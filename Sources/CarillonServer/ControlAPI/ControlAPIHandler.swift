import CarillonProtocol
import Foundation
import NIOConcurrencyHelpers

/// Serves the Chime SDK Meetings REST API (`control-api.md`): routing, validation, idempotency, storage, responses.
///
/// The HTTP shell verifies the SigV4 signature first and passes the caller's access key id in the request.
/// Threading: safe from any task.
public struct ControlAPIHandler: Sendable {
    /// Account id written into meeting ARNs.
    public let accountId: String
    let store: any MeetingStore
    let placement: any MeetingPlacement
    let issueJoinToken: @Sendable (_ meetingId: String, _ attendeeId: String) -> String
    let lifecycle: (any MeetingLifecycleObserver)?
    private let inFlight = NIOLockedValueBox<Set<String>>([])

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - store: Where meetings and attendees live.
    ///   - placement: Fills in MediaPlacement URLs.
    ///   - accountId: Account id of meeting ARNs.
    ///   - issueJoinToken: Makes the join token of a new attendee.
    ///   - lifecycle: Told about deletions so live sessions end.
    public init(
        store: any MeetingStore,
        placement: any MeetingPlacement,
        accountId: String = "000000000000",
        issueJoinToken: @escaping @Sendable (_ meetingId: String, _ attendeeId: String) -> String,
        lifecycle: (any MeetingLifecycleObserver)? = nil
    ) {
        self.store = store
        self.placement = placement
        self.accountId = accountId
        self.issueJoinToken = issueJoinToken
        self.lifecycle = lifecycle
    }

    /// Answers one request; every failure becomes a typed error response, never a thrown error.
    public func handle(_ request: ControlAPIRequest) async -> ControlAPIResponse {
        let requestId = UUID().uuidString.lowercased()
        do {
            let (status, body) = try await route(request)
            var headers: [(name: String, value: String)] = [("x-amzn-RequestId", requestId)]
            guard let body else { return ControlAPIResponse(status: status, headers: headers, body: []) }
            headers.append(("Content-Type", "application/json"))
            return ControlAPIResponse(status: status, headers: headers, body: body)
        } catch let error as ControlAPIError {
            return error.render(requestId: requestId)
        } catch {
            return ControlAPIError.serviceFailure("internal error: \(error)").render(requestId: requestId)
        }
    }

    // MARK: Routing

    private func route(_ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let segments = try Self.segments(request.rawPath)
        let query = Self.query(request.rawQuery)
        let operation = query["operation"]
        let method = request.method.uppercased()
        switch (method, segments.count, segments.first) {
        case ("POST", 1, "meetings"):
            return operation == "create-attendees"
                ? try await createMeeting(request, withAttendees: true)
                : try await createMeeting(request, withAttendees: false)
        case ("GET", 1, "meetings"):
            return try await listMeetings()
        case ("GET", 2, "meetings"):
            return try await getMeeting(segments[1])
        case ("DELETE", 2, "meetings"):
            return try await deleteMeeting(segments[1])
        case ("POST", 3, "meetings") where segments[2] == "attendees":
            return operation == "batch-create"
                ? try await batchCreateAttendee(segments[1], request)
                : try await createAttendee(segments[1], request)
        case ("GET", 3, "meetings") where segments[2] == "attendees":
            return try await listAttendees(segments[1], query)
        case ("PUT", 4, "meetings") where segments[2] == "attendees" && segments[3] == "capabilities":
            return try await updateCapabilities(segments[1], attendeeId: nil, request)
        case ("GET", 4, "meetings") where segments[2] == "attendees":
            return try await getAttendee(segments[1], segments[3])
        case ("DELETE", 4, "meetings") where segments[2] == "attendees":
            return try await deleteAttendee(segments[1], segments[3])
        case ("PUT", 5, "meetings") where segments[2] == "attendees" && segments[4] == "capabilities":
            return try await updateCapabilities(segments[1], attendeeId: segments[3], request)
        case ("POST", 3, "meetings") where segments[2] == "transcription" && (operation == "start" || operation == "stop"):
            return try await transcription(segments[1], start: operation == "start", request)
        case ("POST", 1, "tags") where operation == "tag-resource":
            return try await tagResource(request)
        case ("POST", 1, "tags") where operation == "untag-resource":
            return try await untagResource(request)
        case ("GET", 1, "tags"):
            return try await listTags(query)
        default:
            throw ControlAPIError.notFound("no operation for \(method) \(request.rawPath.prefix(200))\(operation.map { "?operation=\($0)" } ?? "")")
        }
    }

    /// Splits the raw path on `/` first, then percent-decodes each segment (ids may hold an encoded `/`).
    static func segments(_ rawPath: String) throws -> [String] {
        try rawPath.split(separator: "/").map { segment in
            guard let decoded = String(segment).removingPercentEncoding else {
                throw ControlAPIError.badRequest("malformed percent-encoding in the path")
            }
            return decoded
        }
    }

    /// Decodes the query string (`+` stays a plus, as AWS SDKs encode spaces as `%20`).
    static func query(_ raw: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in raw.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            result[key] = value
        }
        return result
    }

    // MARK: Helpers shared by the operations

    func decode<T: Decodable>(_ type: T.Type, _ request: ControlAPIRequest) throws -> T {
        let body = request.body.isEmpty ? Array("{}".utf8) : request.body
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let member = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            throw ControlAPIError.badRequest("member \(member.isEmpty ? "(body)" : member) has the wrong JSON type")
        } catch {
            throw ControlAPIError.badRequest("the request body is not a valid JSON object")
        }
    }

    func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try JSONEncoder().encode(value))
    }

    func meetingRecord(_ rawId: String) async throws -> MeetingRecord {
        let id = try ControlAPIValidation.guid(rawId, "MeetingId")
        guard let meeting = try await store.meeting(id: id) else { throw ControlAPIError.notFound("meeting \(id) not found") }
        return meeting
    }

    func arn(_ meeting: MeetingRecord) -> String {
        "arn:aws:chime:\(meeting.mediaRegion):\(accountId):meeting/\(meeting.meetingId)"
    }

    func render(_ meeting: MeetingRecord) -> ControlAPI.Meeting {
        ControlAPI.Meeting(
            meetingId: meeting.meetingId,
            meetingHostId: meeting.meetingHostId,
            externalMeetingId: meeting.externalMeetingId,
            mediaRegion: meeting.mediaRegion,
            mediaPlacement: placement.mediaPlacement(meetingId: meeting.meetingId),
            meetingFeatures: meeting.features,
            primaryMeetingId: meeting.primaryMeetingId,
            tenantIds: meeting.tenantIds,
            meetingArn: arn(meeting)
        )
    }

    func render(_ attendee: AttendeeRecord) -> ControlAPI.Attendee {
        ControlAPI.Attendee(
            externalUserId: attendee.externalUserId,
            attendeeId: attendee.attendeeId,
            joinToken: attendee.joinToken,
            capabilities: attendee.capabilities
        )
    }

    /// Claims an idempotency token for the duration of one request; a duplicate in flight gets 409.
    func claim(_ key: String) throws {
        let claimed = inFlight.withLockedValue { $0.insert(key).inserted }
        guard claimed else { throw ControlAPIError.conflict("a request with this ClientRequestToken is already in progress") }
    }

    func release(_ key: String) {
        _ = inFlight.withLockedValue { $0.remove(key) }
    }
}
