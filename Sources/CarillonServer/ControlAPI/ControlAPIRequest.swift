/// One control-API call as the HTTP shell hands it over, after the signature was checked.
public struct ControlAPIRequest: Sendable {
    /// HTTP method, upper case.
    public var method: String
    /// The request path as it arrived (percent-encoded), without the query.
    public var rawPath: String
    /// The raw query string, without `?`.
    public var rawQuery: String
    /// Header fields (names in any case).
    public var headers: [(name: String, value: String)]
    /// Body bytes, empty when there is none.
    public var body: [UInt8]
    /// Access key id that signed the request (idempotency tokens are remembered per caller).
    public var accessKeyId: String

    /// Creates a request value.
    public init(method: String, rawPath: String, rawQuery: String = "", headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], accessKeyId: String) {
        self.method = method
        self.rawPath = rawPath
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.accessKeyId = accessKeyId
    }
}
