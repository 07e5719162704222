import NIOCore

/// Bounds on the server's TCP connections (control API, signaling and the operations listener), so that strangers
/// who connect and send nothing, or never join, cannot hold the descriptors that meetings and API callers need.
///
/// A connection is *pre-join* from its accept until it has sent a complete HTTP request head (an API call or a
/// health check), or, for a signaling WebSocket, until its join token is accepted. Pre-join connections are the ones
/// these limits bound: an attendee in a meeting is never closed by them.
public struct ConnectionLimits: Sendable, Equatable {
    /// Pre-join connections allowed from one IP address at once; a further one is closed as soon as it is accepted.
    /// 64 is far above what one browser, app or NAT'd office opens at the same instant (each join is pre-join for
    /// one round trip), and far below what one host needs to fill the descriptor table.
    public var preJoinPerAddress: Int
    /// How long a connection may take to send its first complete request head; a slower one is closed. A signaling
    /// socket then has ``SignalingEndpoint/refusalWait`` (or the meeting's join timeout) to send its JOIN.
    public var requestHeadTimeout: TimeAmount
    /// How long an HTTP connection may sit idle between requests (keep-alive) before it is closed.
    public var idleTimeout: TimeAmount
    /// Most connections open at once; at the limit, the oldest pre-join connection is closed to make room for a new
    /// one, and without any the new one is refused. The server never goes past what its descriptor limit allows (the
    /// soft `RLIMIT_NOFILE` less a reserve of an eighth, at least 64, for the database, the media port, webhooks and
    /// the operations listener), so accepting never meets `EMFILE`; nil means exactly that much.
    public var maximumConnections: Int?

    /// Creates limits; unset values take the defaults documented on each property.
    public init(preJoinPerAddress: Int = 64, requestHeadTimeout: TimeAmount = .seconds(10),
                idleTimeout: TimeAmount = .seconds(60), maximumConnections: Int? = nil) {
        self.preJoinPerAddress = preJoinPerAddress
        self.requestHeadTimeout = requestHeadTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }

    /// The connection budget for a descriptor limit: the limit less its reserve.
    public static func connectionBudget(descriptorLimit: UInt64) -> Int {
        let limit = Int(min(descriptorLimit, UInt64(Int32.max)))
        return max(1, limit - max(64, limit / 8))
    }
}
