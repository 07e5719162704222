import CarillonProtocol

/// Authenticates signaling sockets against the meeting store: the token must belong to an attendee of the meeting
/// in the URL and carry this server's HMAC binding to both ids.
struct StoreSignalingAuthenticator: SignalingAuthenticator {
    let store: any MeetingStore
    let secret: JoinTokenSecret

    func authenticate(meetingId: String, joinToken: String?) async -> SignalingAuthentication {
        guard let joinToken, !joinToken.isEmpty else {
            return .rejected(closeCode: SignalingCloseCode.unauthorized, reason: "no join token offered")
        }
        let (base, isContent) = JoinToken.splitContentSuffix(joinToken)
        do {
            guard try await store.meeting(id: meetingId) != nil else {
                return .rejected(closeCode: SignalingCloseCode.meetingEnded, reason: "meeting \(meetingId) has ended or never existed")
            }
            guard let attendee = try await store.attendee(joinToken: base), attendee.meetingId == meetingId,
                  JoinToken.verify(base, meetingId: meetingId, attendeeId: attendee.attendeeId, secret: secret)
            else {
                return .rejected(closeCode: SignalingCloseCode.unauthorized, reason: "join token is not valid for this meeting")
            }
            let permissions = AttendeeMediaPermissions(attendee.capabilities, contentSession: isContent)
            if isContent, !permissions.sendsVideo {
                return .rejected(closeCode: SignalingCloseCode.forbidden,
                                 reason: "attendee \(attendee.attendeeId) may not share content (Content capability \(attendee.capabilities.content ?? ""))")
            }
            let suffix = isContent ? JoinToken.contentSuffix : ""
            return .accepted(AttendeeIdentity(
                attendeeId: attendee.attendeeId + suffix,
                externalUserId: attendee.externalUserId + suffix
            ), permissions: permissions)
        } catch {
            return .rejected(closeCode: SignalingCloseCode.serverError, reason: "storage unavailable: \(error)")
        }
    }
}
