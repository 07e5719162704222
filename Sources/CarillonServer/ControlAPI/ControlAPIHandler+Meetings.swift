import CarillonCrypto
import CarillonProtocol
import Foundation

extension ControlAPIHandler {
    /// CreateMeeting and CreateMeetingWithAttendees.
    func createMeeting(_ request: ControlAPIRequest, withAttendees: Bool) async throws -> (Int, [UInt8]?) {
        var body = try decode(ControlAPI.CreateMeetingRequest.self, request)
        typealias V = ControlAPIValidation
        // Legacy `chime` clients may omit the token (botocore fills it in for the current API) and the region.
        let token = body.clientRequestToken
        if let token { try V.clientRequestToken(token) }
        let region = body.mediaRegion ?? "us-east-1"
        try V.length(region, "MediaRegion", 2...64)
        try V.oneOf(region, "MediaRegion", V.mediaRegions)
        if let id = body.externalMeetingId { try V.externalId(id, "ExternalMeetingId") }
        if let host = body.meetingHostId { try V.externalId(host, "MeetingHostId") }
        if let primary = body.primaryMeetingId { try V.length(primary, "PrimaryMeetingId", 2...64) }
        if let tenants = body.tenantIds {
            try V.count(tenants, "TenantIds", 1...5)
            for tenant in tenants { try V.tenantId(tenant) }
        }
        let tags = try V.tags(body.tags ?? [], "Tags")
        if let network = body.mediaPlacementNetworkType { try V.oneOf(network, "MediaPlacementNetworkType", V.networkTypes) }
        if let notifications = body.notificationsConfiguration {
            for (member, value) in [("LambdaFunctionArn", notifications.lambdaFunctionArn),
                                    ("SnsTopicArn", notifications.snsTopicArn), ("SqsQueueArn", notifications.sqsQueueArn)] {
                if let value { try V.arn(value, "NotificationsConfiguration.\(member)") }
            }
        }
        let features = try V.features(body.meetingFeatures)
        let attendees = body.attendees ?? []
        if withAttendees { try V.count(attendees, "Attendees", 1...20) }

        // The fingerprint covers every parameter but the token itself.
        body.clientRequestToken = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let fingerprint = Hex.encode(SHA256Digest.hash(try encoder.encode(body)))

        var meeting: MeetingRecord
        if let token {
            let claimKey = "\(request.accessKeyId)\n\(token)"
            try claim(claimKey)
            defer { release(claimKey) }
            if let earlier = try await store.idempotentMeeting(accessKeyId: request.accessKeyId, token: token) {
                guard earlier.fingerprint == fingerprint else {
                    throw ControlAPIError.badRequest("ClientRequestToken \(token) was already used with other parameters")
                }
                guard let existing = try await store.meeting(id: earlier.meetingId) else {
                    throw ControlAPIError.badRequest("ClientRequestToken \(token) belongs to a meeting that has been deleted")
                }
                meeting = existing
            } else {
                meeting = try await insertMeeting(body, region: region, features: features, tags: tags,
                                                  key: IdempotencyKey(accessKeyId: request.accessKeyId, token: token, fingerprint: fingerprint))
            }
        } else {
            meeting = try await insertMeeting(body, region: region, features: features, tags: tags, key: nil)
        }

        let mediaPlacement = try await placement.place(meetingId: meeting.meetingId)
        guard withAttendees else {
            return (200, try encode(ControlAPI.MeetingResponse(meeting: render(meeting, mediaPlacement))))
        }
        let (created, errors) = try await createAttendees(attendees, in: meeting)
        return (200, try encode(ControlAPI.MeetingWithAttendeesResponse(meeting: render(meeting, mediaPlacement),
                                                                         attendees: created, errors: errors)))
    }

    private func insertMeeting(
        _ body: ControlAPI.CreateMeetingRequest,
        region: String,
        features: ControlAPI.MeetingFeaturesConfiguration,
        tags: [ControlAPI.Tag],
        key: IdempotencyKey?
    ) async throws -> MeetingRecord {
        let meeting = MeetingRecord(
            meetingId: UUID().uuidString.lowercased(),
            externalMeetingId: body.externalMeetingId,
            mediaRegion: region,
            meetingHostId: body.meetingHostId,
            primaryMeetingId: body.primaryMeetingId,
            tenantIds: body.tenantIds,
            features: features,
            notifications: body.notificationsConfiguration,
            createdAt: Date()
        )
        try await store.insertMeeting(meeting, idempotencyKey: key)
        if !tags.isEmpty { try await store.setTags(meetingId: meeting.meetingId, tags: tags) }
        lifecycle?.meetingCreated(meeting)
        return meeting
    }

    /// GetMeeting.
    func getMeeting(_ id: String) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(id)
        let placements = try await placement.mediaPlacements(meetingIds: [meeting.meetingId])
        return (200, try encode(ControlAPI.MeetingResponse(meeting: render(meeting, placements[meeting.meetingId]))))
    }

    /// The legacy ListMeetings (`GET /meetings`), kept for `carillon meeting list` and old clients: paginated as
    /// ListAttendees is (`max-results` 1...100, default 100; `next-token`; `NextToken` on every page but the last), so
    /// one request never renders every meeting of the server.
    func listMeetings(_ query: [String: String]) async throws -> (Int, [UInt8]?) {
        let (limit, after) = try Self.page(query)
        let page = try await store.meetings(after: after, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { "p\($0.sequence)" } : nil
        let placements = try await placement.mediaPlacements(meetingIds: shown.map(\.record.meetingId))
        return (200, try encode(ControlAPI.MeetingsResponse(meetings: shown.map { render($0.record, placements[$0.record.meetingId]) },
                                                            nextToken: next)))
    }

    /// DeleteMeeting: removes it with its attendees and ends its live sessions.
    func deleteMeeting(_ id: String) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(id)
        guard try await store.deleteMeeting(id: meeting.meetingId) else {
            throw ControlAPIError.notFound("meeting \(meeting.meetingId) not found")
        }
        lifecycle?.meetingDeleted(meetingId: meeting.meetingId)
        return (204, nil)
    }

    /// StartMeetingTranscription / StopMeetingTranscription: validated, then refused (no transcription engine).
    func transcription(_ id: String, start: Bool, _ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        _ = try await meetingRecord(id)
        if start {
            let object: Any
            do {
                object = try JSONSerialization.jsonObject(with: Data(request.body.isEmpty ? Array("{}".utf8) : request.body))
            } catch {
                throw ControlAPIError.badRequest("the request body is not a valid JSON object")
            }
            guard let body = object as? [String: Any] else { throw ControlAPIError.badRequest("the request body must be a JSON object") }
            try ControlAPIValidation.transcription(body["TranscriptionConfiguration"] as? [String: Any])
        }
        throw ControlAPIError.unprocessable("this server has no transcription engine")
    }
}
