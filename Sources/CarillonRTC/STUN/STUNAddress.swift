/// A transport address inside a STUN attribute: IPv4 or IPv6 bytes and a port.
public struct STUNAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let address: [UInt8]
    /// Port number.
    public let port: UInt16

    /// Creates an address; `address` must be 4 or 16 bytes.
    public init?(address: [UInt8], port: UInt16) {
        guard address.count == 4 || address.count == 16 else { return nil }
        self.address = address
        self.port = port
    }

    /// Whether this is an IPv6 address.
    public var isIPv6: Bool { address.count == 16 }

    /// `a.b.c.d:port` or `[hex:...]:port`.
    public var description: String {
        if !isIPv6 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
        return "[\(groups.joined(separator: ":"))]:\(port)"
    }
}
