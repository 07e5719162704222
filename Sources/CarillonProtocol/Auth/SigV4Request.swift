/// The parts of an HTTP request that SigV4 covers, exactly as they travel on the wire.
///
/// A value type; `Sendable`.
public struct SigV4Request: Sendable {
    /// HTTP method, e.g. `GET`.
    public var method: String
    /// The raw request path, still percent-encoded as sent (e.g. `/meetings/not-a-guid%2Fx%20y`), including any
    /// endpoint path prefix.
    public var path: String
    /// The raw query string without the leading `?` (empty when there is none).
    public var query: String
    /// Every header in arrival order; names compare case-insensitively and may repeat.
    public var headers: [(name: String, value: String)]
    /// The raw body bytes (empty when there is no body).
    public var body: [UInt8]

    /// Creates a request from its parts.
    public init(method: String, path: String, query: String = "", headers: [(name: String, value: String)],
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Creates a request from a request target such as `/meetings?operation=create-attendees`, splitting it at
    /// the first `?`.
    public init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8] = []) {
        if let mark = target.firstIndex(of: "?") {
            self.init(method: method, path: String(target[..<mark]),
                      query: String(target[target.index(after: mark)...]), headers: headers, body: body)
        } else {
            self.init(method: method, path: target, query: "", headers: headers, body: body)
        }
    }

    /// Values of every header called `name` (case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}
