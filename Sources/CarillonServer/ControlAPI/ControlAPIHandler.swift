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
    let live: (any LiveAttendeeSource)?
    let capture: (any MediaCaptureControl)?
    let cluster: (any ClusterNodeSource)?
    let invites: GuestInvites?
    private let inFlight = NIOLockedValueBox<Set<String>>([])

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - store: Where meetings and attendees live.
    ///   - placement: Fills in MediaPlacement URLs.
    ///   - accountId: Account id of meeting ARNs.
    ///   - issueJoinToken: Makes the join token of a new attendee.
    ///   - lifecycle: Told about deletions so live sessions end.
    ///   - live: What attendees are doing now, for Carillon's `GET /carillon/meetings/{id}/attendees` (without one,
    ///     every attendee reads `not-joined`).
    ///   - capture: Records media capture pipelines; without one, CreateMediaCapturePipeline is refused.
    ///   - cluster: The nodes `GET /carillon/nodes` lists (none without one).
    ///   - invites: Signs and checks guest invites (without it, invites are refused and the join page admits nobody).
    public init(
        store: any MeetingStore,
        placement: any MeetingPlacement,
        accountId: String = "000000000000",
        issueJoinToken: @escaping @Sendable (_ meetingId: String, _ attendeeId: String) -> String,
        lifecycle: (any MeetingLifecycleObserver)? = nil,
        live: (any LiveAttendeeSource)? = nil,
        capture: (any MediaCaptureControl)? = nil,
        cluster: (any ClusterNodeSource)? = nil,
        invites: GuestInvites? = nil
    ) {
        self.invites = invites
        self.capture = capture
        self.cluster = cluster
        self.store = store
        self.placement = placement
        self.accountId = accountId
        self.issueJoinToken = issueJoinToken
        self.lifecycle = lifecycle
        self.live = live
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

    /// The operation `request` names, nil when it names none (the request metrics label those "unknown").
    public static func operation(of request: ControlAPIRequest) -> ControlAPIOperation? {
        guard let segments = try? segments(request.rawPath) else { return nil }
        return ControlAPIOperation(method: request.method.uppercased(), segments: segments,
                                   operation: query(request.rawQuery)["operation"])
    }

    private func route(_ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let segments = try Self.segments(request.rawPath)
        let query = Self.query(request.rawQuery)
        let method = request.method.uppercased()
        guard let operation = ControlAPIOperation(method: method, segments: segments, operation: query["operation"]) else {
            let named = query["operation"].map { "?operation=\($0)" } ?? ""
            throw ControlAPIError.notFound("no operation for \(method) \(request.rawPath.prefix(200))\(named)")
        }
        switch operation {
        case .createMeeting: return try await createMeeting(request, withAttendees: false)
        case .createMeetingWithAttendees: return try await createMeeting(request, withAttendees: true)
        case .listMeetings: return try await listMeetings(query)
        case .getMeeting: return try await getMeeting(segments[1])
        case .deleteMeeting: return try await deleteMeeting(segments[1])
        case .createAttendee: return try await createAttendee(segments[1], request)
        case .batchCreateAttendee: return try await batchCreateAttendee(segments[1], request)
        case .listAttendees: return try await listAttendees(segments[1], query)
        case .getAttendee: return try await getAttendee(segments[1], segments[3])
        case .deleteAttendee: return try await deleteAttendee(segments[1], segments[3])
        case .batchUpdateAttendeeCapabilitiesExcept: return try await updateCapabilities(segments[1], attendeeId: nil, request)
        case .updateAttendeeCapabilities: return try await updateCapabilities(segments[1], attendeeId: segments[3], request)
        case .startMeetingTranscription: return try await transcription(segments[1], start: true, request)
        case .stopMeetingTranscription: return try await transcription(segments[1], start: false, request)
        case .tagResource: return try await tagResource(request)
        case .untagResource: return try await untagResource(request)
        case .listTagsForResource: return try await listTags(query)
        case .listLiveAttendees: return try await listLiveAttendees(segments[2])
        case .listNodes: return try await listNodes()
        case .createInvite: return try await createInvite(segments[2], request)
        case .guestJoin:
            // Never named by a signed request's path: guests post to /join/<invite> (joinAsGuest).
            throw ControlAPIError.notFound("no operation for \(method) \(request.rawPath.prefix(200))")
        case .createMediaCapturePipeline: return try await createMediaCapturePipeline(request)
        case .getMediaCapturePipeline: return try await getMediaCapturePipeline(segments[1])
        case .listMediaCapturePipelines: return try await listMediaCapturePipelines(query)
        case .deleteMediaCapturePipeline: return try await deleteMediaCapturePipeline(segments[1])
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
        try decode(type, body: request.body)
    }

    /// A JSON body as `T` (an empty body reads as `{}`); a typed 400 for anything else.
    func decode<T: Decodable>(_ type: T.Type, body: [UInt8]) throws -> T {
        let body = body.isEmpty ? Array("{}".utf8) : body
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

    /// How the API writes a time: ISO 8601 in UTC with milliseconds (`2026-11-29T16:53:33.545Z`), as Chime does.
    static let timestampFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    func meetingRecord(_ rawId: String) async throws -> MeetingRecord {
        let id = try ControlAPIValidation.guid(rawId, "MeetingId")
        guard let meeting = try await store.meeting(id: id) else { throw ControlAPIError.notFound("meeting \(id) not found") }
        return meeting
    }

    func arn(_ meeting: MeetingRecord) -> String {
        "arn:aws:chime:\(meeting.mediaRegion):\(accountId):meeting/\(meeting.meetingId)"
    }

    /// The meeting as the API shows it, with its MediaPlacement (``MeetingPlacement``).
    func render(_ meeting: MeetingRecord, _ mediaPlacement: ControlAPI.MediaPlacement?) -> ControlAPI.Meeting {
        ControlAPI.Meeting(
            meetingId: meeting.meetingId,
            meetingHostId: meeting.meetingHostId,
            externalMeetingId: meeting.externalMeetingId,
            mediaRegion: meeting.mediaRegion,
            mediaPlacement: mediaPlacement,
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
