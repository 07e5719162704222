/// Where meeting events go: an HTTP(S) URL the operator runs, and the secret their signatures are made with.
///
/// Each event is POSTed as JSON (a ``MeetingEvent``) with `Carillon-Signature: t=<unix seconds>,v1=<hex>`, where
/// `<hex>` is HMAC-SHA256 with the secret over `<t>.<body>`; a receiver recomputes it and rejects a stale `t`.
/// Events go one at a time, in order; a failure (no answer within 5 s, or a status outside 2xx) is retried after
/// 0.5 s, doubling up to 30 s, at most ``maximumAttempts`` times, and never holds up a meeting: events wait in a
/// queue of at most ``queueLimit`` (the oldest are dropped beyond it).
public struct WebhookTarget: Sendable, Equatable {
    /// The receiver's URL.
    public var url: String
    /// The signing secret.
    public var secret: String
    /// Deliveries tried per event before it is given up.
    public var maximumAttempts: Int
    /// Events waiting at most.
    public var queueLimit: Int

    /// Creates a target.
    public init(url: String, secret: String, maximumAttempts: Int = 8, queueLimit: Int = 10_000) {
        self.url = url
        self.secret = secret
        self.maximumAttempts = maximumAttempts
        self.queueLimit = queueLimit
    }
}
