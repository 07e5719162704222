/// Decides who a signaling socket speaks for, from the meeting id in its URL and the join token it offered.
public protocol SignalingAuthenticator: Sendable {
    /// Checks a join token (possibly with the `#content` suffix) against the meeting.
    func authenticate(meetingId: String, joinToken: String?) async -> SignalingAuthentication
}
