/// What the control API answers: status, headers (always `x-amzn-RequestId`) and body bytes.
public struct ControlAPIResponse: Sendable {
    /// HTTP status code.
    public var status: Int
    /// Header fields.
    public var headers: [(name: String, value: String)]
    /// Body bytes; empty for 204.
    public var body: [UInt8]

    /// Creates a response value.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header, matched without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
