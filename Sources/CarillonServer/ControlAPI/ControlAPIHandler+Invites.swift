import CarillonCrypto
import CarillonProtocol
import Foundation

/// Guest invites: Carillon's signed `POST /carillon/meetings/{id}/invites` makes a link, and the join page redeems it
/// (``joinAsGuest(invite:body:)``) without a signature, the invite in its path being the credential. Nothing else of
/// the control API is reachable with an invite.
extension ControlAPIHandler {
    /// The longest name a guest can choose: ExternalUserId holds at most 64 characters and the guest's is
    /// `<8 hex digits>#<name>`.
    public static let maximumGuestNameLength = 55

    /// CarillonCreateInvite: an invite link to an existing meeting, valid for `ExpiresInSeconds` (default 24 h, at most
    /// 30 days).
    func createInvite(_ meetingId: String, _ request: ControlAPIRequest) async throws -> (Int, [UInt8]?) {
        guard let invites else { throw ControlAPIError.unprocessable("this server does not issue guest invites") }
        let meeting = try await meetingRecord(meetingId)
        let lifetime = try decode(ControlAPI.InviteRequest.self, request).expiresInSeconds ?? GuestInvites.defaultLifetimeSeconds
        guard (1...InviteToken.maximumLifetimeSeconds).contains(Int64(lifetime)) else {
            throw ControlAPIError.badRequest("ExpiresInSeconds must be from 1 to \(InviteToken.maximumLifetimeSeconds) (30 days), got \(lifetime)")
        }
        guard InviteToken.isMeetingId(meeting.meetingId) else {
            throw ControlAPIError.unprocessable("meeting \(meeting.meetingId) has an id invites cannot name")
        }
        let expiresAt = invites.now() + Int64(lifetime)
        let token = InviteToken.issue(meetingId: meeting.meetingId, expiresAt: expiresAt, secret: invites.secret)
        let invite = ControlAPI.InviteResponse.Invite(
            meetingId: meeting.meetingId, token: token, url: invites.url(token: token),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expiresAt)).formatted(Self.timestampFormat))
        return (201, try encode(ControlAPI.InviteResponse(invite: invite)))
    }

    /// The meeting an invite admits to now, or the error a guest sees: 403 for a link that is not this server's, 410
    /// for an expired one, 404 for a meeting that has ended. Reads the store once (the meeting).
    public func invitedMeeting(_ invite: String) async -> Result<MeetingRecord, ControlAPIError> {
        guard let invites else { return .failure(.notFound("this server does not admit guests")) }
        switch InviteToken.verify(invite, secret: invites.secret, now: invites.now()) {
        case .failure(.expired):
            return .failure(.gone("This invite link has expired. Ask the host for a new one."))
        case .failure(let refusal):
            return .failure(.forbidden("This is not a valid invite link (\(refusal))."))
        case .success(let claims):
            do {
                guard let meeting = try await store.meeting(id: claims.meetingId) else {
                    return .failure(.notFound("This meeting has ended."))
                }
                return .success(meeting)
            } catch {
                return .failure(.serviceUnavailable("The meeting service cannot be reached; try again in a moment."))
            }
        }
    }

    /// Redeems a guest invite: `{"Name": "..."}` in, a new attendee of the invited meeting out, as
    /// `{"JoinInfo": {"Meeting", "Attendee"}}` (the Chime JS demo's join-endpoint shape). The attendee's ExternalUserId
    /// is `<8 random hex digits>#<name>`, unique per guest, from which Chime JS pages show the name after `#`.
    /// Errors are the control API's JSON errors: 400 for a bad name, 403/404/410 as ``invitedMeeting(_:)``, the
    /// attendee limit as CreateAttendee's.
    public func joinAsGuest(invite: String, body: [UInt8]) async -> ControlAPIResponse {
        let requestId = UUID().uuidString.lowercased()
        do {
            let meeting = try await invitedMeeting(invite).get()
            let name = try Self.guestName(try decode(ControlAPI.GuestJoinRequest.self, body: body).name)
            let externalUserId = Hex.encode(SecureRandom.bytes(count: 4)) + "#" + name
            let attendee = try await createAttendee(
                ControlAPI.CreateAttendeeRequestItem(externalUserId: externalUserId), in: meeting)
            let placements = try await placement.mediaPlacements(meetingIds: [meeting.meetingId])
            let joinInfo = ControlAPI.JoinInfoResponse.JoinInfo(meeting: render(meeting, placements[meeting.meetingId]),
                                                                attendee: render(attendee))
            return ControlAPIResponse(status: 200, headers: [("x-amzn-RequestId", requestId), ("Content-Type", "application/json")],
                                      body: try encode(ControlAPI.JoinInfoResponse(joinInfo: joinInfo)))
        } catch let error as ControlAPIError {
            return error.render(requestId: requestId)
        } catch {
            return ControlAPIError.serviceFailure("internal error: \(error)").render(requestId: requestId)
        }
    }

    /// The name as the guest's ExternalUserId carries it: trimmed, 1 to 55 characters, of the characters Chime allows
    /// in an ExternalUserId (letters, digits, accented Latin letters, spaces and `-_&@+=,(){}[]/«».:|'"#`).
    static func guestName(_ raw: String?) throws -> String {
        let name = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw ControlAPIError.badRequest("Please enter your name.") }
        guard name.count <= maximumGuestNameLength else {
            throw ControlAPIError.badRequest("A name can have at most \(maximumGuestNameLength) characters.")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ControlAPIError.badRequest("A name cannot contain control characters.")
        }
        do {
            try ControlAPIValidation.externalId("00000000#" + name, "Name")
        } catch {
            throw ControlAPIError.badRequest("A name can hold letters, digits, spaces and - _ & @ + = , ( ) { } [ ] / . : | ' \" #; \(error.message)")
        }
        return name
    }
}
