import NIOCore

/// The recently sent packets of one RTP stream, kept so NACKed ones can be retransmitted (sans-IO).
///
/// A fixed ring of `capacity` slots indexed by sequence number: storing never allocates once the slots are filled,
/// and a packet is found in O(1). Packets older than `maximumAge` are not retransmitted (they would arrive too late).
public struct RTPSendHistory: Sendable {
    /// How many packets are kept.
    public let capacity: Int
    /// Oldest packet age that is still retransmitted.
    public let maximumAge: TimeAmount
    private var slots: [(sequence: UInt16, sentAt: NIODeadline, packet: [UInt8])?]

    /// Creates an empty history.
    public init(capacity: Int = 1024, maximumAge: TimeAmount = .seconds(1)) {
        precondition(capacity > 0, "a send history holds at least one packet")
        self.capacity = capacity
        self.maximumAge = maximumAge
        self.slots = Array(repeating: nil, count: capacity)
    }

    /// Remembers a packet as sent at `now` (its plain RTP bytes, before SRTP).
    public mutating func store(sequenceNumber: UInt16, packet: [UInt8], now: NIODeadline) {
        slots[Int(sequenceNumber) % capacity] = (sequenceNumber, now, packet)
    }

    /// The packet with `sequenceNumber` if it is still kept and young enough to be worth resending.
    public func packet(sequenceNumber: UInt16, now: NIODeadline) -> [UInt8]? {
        guard let slot = slots[Int(sequenceNumber) % capacity], slot.sequence == sequenceNumber,
              now - slot.sentAt <= maximumAge
        else { return nil }
        return slot.packet
    }
}
