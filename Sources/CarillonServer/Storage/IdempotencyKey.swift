/// What makes a CreateMeeting idempotent: the caller, its ClientRequestToken, and a fingerprint of the parameters.
public struct IdempotencyKey: Sendable, Equatable, Hashable {
    /// Access key id of the caller.
    public var accessKeyId: String
    /// The request's ClientRequestToken.
    public var token: String
    /// Digest of the request's other parameters; a reuse with another fingerprint is refused.
    public var fingerprint: String

    /// Creates a key.
    public init(accessKeyId: String, token: String, fingerprint: String) {
        self.accessKeyId = accessKeyId
        self.token = token
        self.fingerprint = fingerprint
    }
}
