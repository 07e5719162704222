/// Where `/metrics` and `/health` are served: a listener of their own, apart from the public API port, so that a
/// reverse proxy or a firewall rule for the API never exposes them.
///
/// The default binds 127.0.0.1 only. A ``token``, when set, must arrive as `Authorization: Bearer <token>` on every
/// request (401 otherwise); `carillon serve` refuses a non-loopback host without one.
public struct OperationsEndpoint: Sendable, Equatable {
    /// Address to bind.
    public var host: String
    /// TCP port; 0 picks a free one.
    public var port: Int
    /// Bearer token required on every request, or nil for none.
    public var token: String?

    /// Creates an endpoint; the defaults are 127.0.0.1:9464 (Prometheus exporters' customary port) without a token.
    public init(host: String = "127.0.0.1", port: Int = 9464, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }
}
