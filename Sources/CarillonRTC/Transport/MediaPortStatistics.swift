/// Counters of a ``MediaPort`` since it was bound: every datagram through the one UDP socket, both ways.
public struct MediaPortStatistics: Sendable, Equatable {
    /// Datagrams read from the socket.
    public var datagramsReceived = 0
    /// Bytes of the datagrams read (UDP payload).
    public var bytesReceived = 0
    /// Datagrams written to the socket.
    public var datagramsSent = 0
    /// Bytes of the datagrams written (UDP payload).
    public var bytesSent = 0
    /// Datagrams dropped because no connection claimed them (no known source address, no matching ICE username).
    public var datagramsUnrouted = 0
    /// Connectivity checks naming a connection whose MESSAGE-INTEGRITY did not verify: handed to the connection (which
    /// refuses them) without learning their source address.
    public var checksUnverified = 0
    /// Arrays allocated to read datagrams into because the port's receive pool had none spare; it stops growing once
    /// the connections give handled datagrams back (none allocated per datagram in steady state).
    public var receiveBuffersAllocated = 0
    /// Received datagrams' arrays the pool let go when they came back (it was full, or they had lost their capacity).
    public var receiveBuffersReleased = 0

    /// All zero.
    public init() {}
}
