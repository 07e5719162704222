import NIOCore

/// The recently sent packets of one RTP stream, kept so NACKed ones can be retransmitted (sans-IO).
///
/// A fixed ring of `capacity` slots indexed by sequence number, found in O(1). Each slot keeps its own copy in a
/// buffer that is reused when the slot is: once the ring has gone round, storing copies into the evicted packet's
/// buffer and allocates nothing (unless a packet is larger than any the slot held), and the caller's array is never
/// shared, so it can be protected in place for sending without a copy. Packets older than `maximumAge` are not
/// retransmitted (they would arrive too late). Memory: up to `capacity` of the largest packets stored.
public struct RTPSendHistory: Sendable {
    /// How many packets are kept.
    public let capacity: Int
    /// Oldest packet age that is still retransmitted.
    public let maximumAge: TimeAmount
    private var sequences: [UInt16]
    /// When each slot's packet was sent; nil for a slot never filled.
    private var sentAt: [NIODeadline?]
    private var buffers: [[UInt8]]

    /// Creates an empty history.
    public init(capacity: Int = 1024, maximumAge: TimeAmount = .seconds(1)) {
        precondition(capacity > 0, "a send history holds at least one packet")
        self.capacity = capacity
        self.maximumAge = maximumAge
        sequences = Array(repeating: 0, count: capacity)
        sentAt = Array(repeating: nil, count: capacity)
        buffers = Array(repeating: [], count: capacity)
    }

    /// Remembers a copy of a packet as sent at `now` (its plain RTP bytes, before SRTP).
    public mutating func store(sequenceNumber: UInt16, packet: [UInt8], now: NIODeadline) {
        let slot = Int(sequenceNumber) % capacity
        sequences[slot] = sequenceNumber
        sentAt[slot] = now
        buffers[slot].removeAll(keepingCapacity: true)
        buffers[slot].append(contentsOf: packet)
    }

    /// The packet with `sequenceNumber` if it is still kept and young enough to be worth resending.
    public func packet(sequenceNumber: UInt16, now: NIODeadline) -> [UInt8]? {
        let slot = Int(sequenceNumber) % capacity
        guard let sent = sentAt[slot], sequences[slot] == sequenceNumber, now - sent <= maximumAge else { return nil }
        return buffers[slot]
    }
}
