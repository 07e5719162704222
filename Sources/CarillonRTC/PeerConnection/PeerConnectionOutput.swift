/// What a ``PeerConnection`` call produced: datagrams to put on the wire and events for the owner.
public struct PeerConnectionOutput: Sendable {
    /// Datagrams to send, each with its destination.
    public var datagrams: [(datagram: [UInt8], to: STUNAddress)] = []
    /// What happened, in order.
    public var events: [PeerConnectionEvent] = []
    /// The datagram a `receive` call handled (decrypted in place when it was media: an `.rtp` event's payload is a
    /// slice of it), handed back so its owner can reuse the storage for a later datagram once it has let go of the
    /// events (``PeerConnectionDriver`` gives it to ``MediaPort``'s receive pool); nil after other calls.
    public var receivedDatagram: [UInt8]?

    /// An empty output.
    public init() {}

    /// Whether there is nothing to send and nothing to report.
    public var isEmpty: Bool { datagrams.isEmpty && events.isEmpty }
}
