import CarillonCrypto

/// One side's ICE credentials: the `a=ice-ufrag` and `a=ice-pwd` of its SDP.
public struct ICECredentials: Sendable, Hashable {
    /// The username fragment (4 to 256 ICE characters).
    public var usernameFragment: String
    /// The password (22 to 256 ICE characters).
    public var password: String

    /// Creates credentials from known values.
    public init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }

    /// Fresh random credentials: an 8-character fragment and a 24-character password (RFC 8839 §5.4 asks for at
    /// least 24 bits and 128 bits of randomness).
    public static func random() -> ICECredentials {
        ICECredentials(usernameFragment: randomICEString(count: 8), password: randomICEString(count: 24))
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func randomICEString(count: Int) -> String {
        // 64 symbols: each random byte gives 6 bits.
        let bytes = SecureRandom.bytes(count: count)
        return String(decoding: bytes.map { alphabet[Int($0 & 63)] }, as: UTF8.self)
    }
}
