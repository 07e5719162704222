/// What a ``PeerConnection`` call produced: datagrams to put on the wire and events for the owner.
public struct PeerConnectionOutput: Sendable {
    /// Datagrams to send, each with its destination.
    public var datagrams: [(datagram: [UInt8], to: STUNAddress)] = []
    /// What happened, in order.
    public var events: [PeerConnectionEvent] = []

    /// An empty output.
    public init() {}

    /// Whether there is nothing to send and nothing to report.
    public var isEmpty: Bool { datagrams.isEmpty && events.isEmpty }
}
