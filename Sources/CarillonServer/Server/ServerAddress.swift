/// Where a running server can be reached.
public struct ServerAddress: Sendable, Equatable {
    /// Base URL of the control API, e.g. `http://127.0.0.1:8080`.
    public var endpoint: String
    /// TCP port the HTTP and WebSocket listener is bound to.
    public var port: Int
    /// UDP port announced for media.
    public var mediaPort: Int

    /// Creates an address.
    public init(endpoint: String, port: Int, mediaPort: Int) {
        self.endpoint = endpoint
        self.port = port
        self.mediaPort = mediaPort
    }
}
