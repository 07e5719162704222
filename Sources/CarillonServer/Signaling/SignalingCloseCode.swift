/// WebSocket close codes the server uses, chosen to match how Chime clients react (`signaling.md` §1.7).
public enum SignalingCloseCode {
    /// Normal closure.
    public static let normal: UInt16 = 1000
    /// The join token is missing, forged or no longer valid: permanent rejection.
    public static let unauthorized: UInt16 = 4401
    /// The socket sent nothing for too long.
    public static let idle: UInt16 = 4408
    /// The meeting has ended or does not exist.
    public static let meetingEnded: UInt16 = 4410
    /// The attendee was deleted.
    public static let attendeeRemoved: UInt16 = 4411
    /// A newer socket of the same attendee took over.
    public static let replaced: UInt16 = 4409
    /// The meeting has all the sessions of this kind it takes (a third content share): permanent rejection at JOIN
    /// (`signaling.md` §1.7 suggests 4000 + HTTP 409; the same code as ``replaced``, which only a joined socket gets).
    public static let atCapacity: UInt16 = 4409
    /// The session went past a hard limit (data messages per second, `policies.md` §4): 4000 + HTTP 429. A Chime client
    /// that is in the meeting does not react to it at once (§1.7), so it is kept for senders that break the rules.
    public static let tooManyRequests: UInt16 = 4429
    /// The attendee may not do what the socket is for (a content share without the Content capability to send, or
    /// one whose capability was taken away): permanent rejection, 4000 + HTTP 403.
    public static let forbidden: UInt16 = 4403
    /// Transient server trouble: clients retry.
    public static let serverError: UInt16 = 4500
    /// The socket's reader fell behind its queue (``SignalingEndpoint/maximumQueuedMessages``): clients reconnect.
    public static let fellBehind: UInt16 = 4508
    /// The server is shutting down: clients retry (and find it again after a restart).
    public static let shuttingDown: UInt16 = 4503
}
