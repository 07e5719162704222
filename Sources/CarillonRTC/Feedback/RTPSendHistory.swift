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
    /// One packet's place: its number, when it was sent (nil for a slot never filled) and its bytes, together so that
    /// storing touches one element of one array (one uniqueness check, one cache line of bookkeeping) per packet.
    private struct Slot {
        var sequenceNumber: UInt16 = 0
        var sentAt: NIODeadline?
        var bytes: [UInt8] = []
    }
    private var slots: [Slot]

    /// Creates an empty history.
    public init(capacity: Int = 1024, maximumAge: TimeAmount = .seconds(1)) {
        precondition(capacity > 0, "a send history holds at least one packet")
        self.capacity = capacity
        self.maximumAge = maximumAge
        slots = Array(repeating: Slot(), count: capacity)
    }

    /// Remembers a copy of a packet as sent at `now` (its plain RTP bytes, before SRTP).
    public mutating func store(sequenceNumber: UInt16, packet: [UInt8], now: NIODeadline) {
        let index = Int(sequenceNumber) % capacity
        slots.withUnsafeMutableBufferPointer { slots in
            slots[index].sequenceNumber = sequenceNumber
            slots[index].sentAt = now
            slots[index].bytes.removeAll(keepingCapacity: true)
            slots[index].bytes.append(contentsOf: packet)
        }
    }

    /// The packet with `sequenceNumber` if it is still kept and young enough to be worth resending.
    public func packet(sequenceNumber: UInt16, now: NIODeadline) -> [UInt8]? {
        let slot = slots[Int(sequenceNumber) % capacity]
        guard let sent = slot.sentAt, slot.sequenceNumber == sequenceNumber, now - sent <= maximumAge else { return nil }
        return slot.bytes
    }
}
