/// Where a running server can be reached.
public struct ServerAddress: Sendable, Equatable {
    /// Base URL of the control API, e.g. `http://127.0.0.1:8080`.
    public var endpoint: String
    /// TCP port the HTTP and WebSocket listener is bound to.
    public var port: Int
    /// UDP port announced for media.
    public var mediaPort: Int
    /// Base URL of `/metrics` and `/health`, e.g. `http://127.0.0.1:9464`; nil when not served.
    public var operationsEndpoint: String?

    /// Creates an address.
    public init(endpoint: String, port: Int, mediaPort: Int, operationsEndpoint: String? = nil) {
        self.endpoint = endpoint
        self.port = port
        self.mediaPort = mediaPort
        self.operationsEndpoint = operationsEndpoint
    }
}
