/// The `o=` line (RFC 8866 §5.2): who made the description and which version it is.
public struct SDPOrigin: Sendable, Equatable, Hashable {
    /// User name, `-` when there is none.
    public var username: String
    /// Session id; stays the same across renegotiations.
    public var sessionId: UInt64
    /// Version; grows by one each time the description changes.
    public var sessionVersion: UInt64
    /// Network type, `IN`.
    public var networkType: String
    /// Address type, `IP4` or `IP6`.
    public var addressType: String
    /// The originating address (browsers write `127.0.0.1` or `0.0.0.0`).
    public var address: String

    /// Creates an origin; without a session id a random 62-bit one is chosen (RFC 8866 §5.2 suggests NTP-like values,
    /// JSEP §5.2.1 a random 63-bit or shorter one).
    public init(username: String = "-", sessionId: UInt64 = UInt64.random(in: 1...(1 << 62)), sessionVersion: UInt64 = 2,
                networkType: String = "IN", addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionId = sessionId
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// The line value without `o=`.
    public var sdpValue: String { "\(username) \(sessionId) \(sessionVersion) \(networkType) \(addressType) \(address)" }
}
