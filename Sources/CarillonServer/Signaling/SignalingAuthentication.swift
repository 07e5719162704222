/// The outcome of checking a signaling socket's join token.
public enum SignalingAuthentication: Sendable, Equatable {
    /// The token is valid for this attendee of this meeting, which may send and receive what `permissions` allow.
    case accepted(AttendeeIdentity, permissions: AttendeeMediaPermissions = .all)
    /// The socket is refused; it is closed with `closeCode` once the client has sent its JOIN.
    case rejected(closeCode: UInt16, reason: String)
}
