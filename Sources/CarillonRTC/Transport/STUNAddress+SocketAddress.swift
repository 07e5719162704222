import NIOCore

extension STUNAddress {
    /// The address of a NIO socket address; nil for Unix-domain addresses.
    public init?(_ socketAddress: SocketAddress) {
        guard let port = socketAddress.port, let bytes = socketAddress.addressBytes else { return nil }
        self.init(address: bytes, port: UInt16(port))
    }

    /// The NIO socket address of this transport address.
    public var socketAddress: SocketAddress {
        // The byte count is 4 or 16 by construction, which is all `packedIPAddress` needs.
        try! SocketAddress(packedIPAddress: ByteBuffer(bytes: address), port: Int(port))
    }
}

extension SocketAddress {
    /// The raw IPv4 or IPv6 address bytes in network order.
    fileprivate var addressBytes: [UInt8]? {
        switch self {
        case .v4(let v4):
            withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        case .unixDomainSocket:
            nil
        }
    }
}
