import CarillonProtocol
import Foundation

extension ControlAPIHandler {
    /// CreateAttendee: a repeat of an ExternalUserId returns the existing attendee.
    func createAttendee(_ meetingId: String, _ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let item = try decode(ControlAPI.CreateAttendeeRequestItem.self, request)
        let attendee = try await createAttendee(item, in: meeting)
        return (200, try encode(ControlAPI.AttendeeResponse(attendee: render(attendee))))
    }

    /// BatchCreateAttendee: per-item failures go into `Errors`.
    func batchCreateAttendee(_ meetingId: String, _ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let items = try ControlAPIValidation.require(decode(ControlAPI.AttendeeListRequest.self, request).attendees, "Attendees")
        try ControlAPIValidation.count(items, "Attendees", 1...100)
        let (created, errors) = try await createAttendees(items, in: meeting)
        return (200, try encode(ControlAPI.AttendeesResponse(attendees: created, errors: errors)))
    }

    /// Creates each item, collecting typed per-item errors instead of failing the call.
    func createAttendees(
        _ items: [ControlAPI.CreateAttendeeRequestItem],
        in meeting: MeetingRecord
    ) async throws -> ([ControlAPI.Attendee], [ControlAPI.CreateAttendeeError]) {
        var created: [ControlAPI.Attendee] = []
        var errors: [ControlAPI.CreateAttendeeError] = []
        var seen: Set<String> = []
        for item in items {
            do {
                let attendee = try await createAttendee(item, in: meeting)
                // A repeat inside the batch names the same attendee; list it once.
                if seen.insert(attendee.attendeeId).inserted { created.append(render(attendee)) }
            } catch let error as ControlAPIError {
                errors.append(.init(externalUserId: item.externalUserId, errorCode: error.code, errorMessage: error.message))
            }
        }
        return (created, errors)
    }

    func createAttendee(_ item: ControlAPI.CreateAttendeeRequestItem, in meeting: MeetingRecord) async throws -> AttendeeRecord {
        let externalUserId = try ControlAPIValidation.require(item.externalUserId, "ExternalUserId")
        try ControlAPIValidation.externalId(externalUserId, "ExternalUserId")
        let capabilities = try ControlAPIValidation.capabilities(item.capabilities, features: meeting.features)
        let attendeeId = UUID().uuidString.lowercased()
        let record = AttendeeRecord(
            meetingId: meeting.meetingId,
            attendeeId: attendeeId,
            externalUserId: externalUserId,
            joinToken: issueJoinToken(meeting.meetingId, attendeeId),
            capabilities: capabilities
        )
        switch try await store.insertAttendee(record, limit: meeting.attendeeLimit) {
        case .created(let stored):
            lifecycle?.attendeeCreated(stored)
            return stored
        case .existing(let stored):
            return stored
        case .limitExceeded(let limit):
            throw ControlAPIError.limitExceeded("meeting \(meeting.meetingId) already has its maximum of \(limit) attendees")
        case .meetingNotFound:
            throw ControlAPIError.notFound("meeting \(meeting.meetingId) not found")
        }
    }

    /// ListAttendees with `max-results` (1-100, default 100) and an opaque `next-token`.
    func listAttendees(_ meetingId: String, _ query: [String: String]) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let (limit, after) = try Self.page(query)
        // One extra row tells whether another page follows.
        let page = try await store.attendees(meetingId: meeting.meetingId, after: after, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { "p\($0.sequence)" } : nil
        return (200, try encode(ControlAPI.AttendeesResponse(attendees: shown.map(render), nextToken: next)))
    }

    /// The page a list request asks for: `max-results` (1...100, default 100) and the sequence number its
    /// `next-token` (`p<number>`, as this server issues them) starts after.
    static func page(_ query: [String: String]) throws -> (limit: Int, after: Int64) {
        var limit = 100
        if let raw = query["max-results"] {
            guard let value = Int(raw), (1...100).contains(value) else {
                throw ControlAPIError.badRequest("max-results must be an integer from 1 to 100, got \"\(raw.prefix(32))\"")
            }
            limit = value
        }
        var after: Int64 = 0
        if let token = query["next-token"] {
            guard token.count <= 4096, token.hasPrefix("p"), let value = Int64(token.dropFirst()), value >= 0 else {
                throw ControlAPIError.badRequest("next-token is not a token this server issued")
            }
            after = value
        }
        return (limit, after)
    }

    /// GetAttendee.
    func getAttendee(_ meetingId: String, _ attendeeId: String) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let id = try ControlAPIValidation.guid(attendeeId, "AttendeeId")
        guard let attendee = try await store.attendee(meetingId: meeting.meetingId, attendeeId: id) else {
            throw ControlAPIError.notFound("attendee \(id) not found in meeting \(meeting.meetingId)")
        }
        return (200, try encode(ControlAPI.AttendeeResponse(attendee: render(attendee))))
    }

    /// DeleteAttendee: its join token stops working and its live sessions end.
    func deleteAttendee(_ meetingId: String, _ attendeeId: String) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let id = try ControlAPIValidation.guid(attendeeId, "AttendeeId")
        guard try await store.deleteAttendee(meetingId: meeting.meetingId, attendeeId: id) else {
            throw ControlAPIError.notFound("attendee \(id) not found in meeting \(meeting.meetingId)")
        }
        lifecycle?.attendeeDeleted(meetingId: meeting.meetingId, attendeeId: id)
        return (204, nil)
    }

    /// UpdateAttendeeCapabilities (one attendee) and BatchUpdateAttendeeCapabilitiesExcept (`attendeeId` nil).
    func updateCapabilities(_ meetingId: String, attendeeId: String?, _ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        let meeting = try await meetingRecord(meetingId)
        let body = try decode(ControlAPI.CapabilitiesRequest.self, request)
        let requested = try ControlAPIValidation.require(body.capabilities, "Capabilities")
        let capabilities = try ControlAPIValidation.capabilities(requested, features: meeting.features)
        if let attendeeId {
            let id = try ControlAPIValidation.guid(attendeeId, "AttendeeId")
            let updated = try await store.updateCapabilities(meetingId: meeting.meetingId, attendeeIds: [id], excluding: [],
                                                             capabilities: capabilities)
            guard let attendee = updated.first else {
                throw ControlAPIError.notFound("attendee \(id) not found in meeting \(meeting.meetingId)")
            }
            lifecycle?.attendeeCapabilitiesChanged(meetingId: meeting.meetingId, attendeeIds: [id], capabilities: capabilities)
            return (200, try encode(ControlAPI.AttendeeResponse(attendee: render(attendee))))
        }
        let excluded = try ControlAPIValidation.require(body.excludedAttendeeIds, "ExcludedAttendeeIds")
        try ControlAPIValidation.count(excluded, "ExcludedAttendeeIds", 1...250)
        var ids: Set<String> = []
        for item in excluded {
            ids.insert(try ControlAPIValidation.guid(try ControlAPIValidation.require(item.attendeeId, "ExcludedAttendeeIds.AttendeeId"),
                                                     "ExcludedAttendeeIds.AttendeeId"))
        }
        let updated = try await store.updateCapabilities(meetingId: meeting.meetingId, attendeeIds: nil, excluding: ids,
                                                         capabilities: capabilities)
        lifecycle?.attendeeCapabilitiesChanged(meetingId: meeting.meetingId, attendeeIds: updated.map(\.attendeeId),
                                               capabilities: capabilities)
        return (200, nil)
    }
}
