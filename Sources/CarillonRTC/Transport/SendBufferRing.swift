import NIOCore

/// A ring of byte buffers that datagrams are copied into on their way to the socket (``MediaPort``'s outbox): by the
/// time the ring comes round, the socket has written and released a slot's buffer, so the slot's storage is reused in
/// place and the copy allocates nothing. A buffer the socket still holds (a burst larger than the ring) is copied on
/// write: correct, one allocation.
///
/// This copy is the one the path cannot avoid: the media cores build and SRTP-protect datagrams in arrays, and NIO
/// writes only `ByteBuffer`s. Cost: one `memcpy` of the datagram; about 1.5 KB of memory a slot.
/// Threading: a value owned by one event loop (one outbox per loop).
public struct SendBufferRing {
    /// Slots in the ring, by default.
    public static let defaultSize = 1_024
    /// The capacity a new buffer starts with: a full-size datagram.
    public static let bufferCapacity = 1_500

    /// Slots in this ring.
    public let size: Int
    private let allocator: ByteBufferAllocator
    /// Buffers handed to the socket before; each slot keeps one reference so its storage can be reused.
    private var ring: [ByteBuffer?] = []
    private var nextSlot = 0

    /// A ring of `size` slots (at least one) whose buffers come from `allocator`.
    public init(size: Int = SendBufferRing.defaultSize, allocator: ByteBufferAllocator) {
        self.size = max(1, size)
        self.allocator = allocator
    }

    /// The next slot's buffer, cleared and holding `bytes`; the slot keeps a reference for the next round.
    public mutating func buffer(holding bytes: [UInt8]) -> ByteBuffer {
        if ring.count < size {
            var buffer = allocator.buffer(capacity: max(bytes.count, Self.bufferCapacity))
            buffer.writeBytes(bytes)
            ring.append(buffer)
            return buffer
        }
        // Moved out of the slot, so the ring's reference does not count against uniqueness.
        var buffer = ring[nextSlot].take() ?? allocator.buffer(capacity: Self.bufferCapacity)
        buffer.clear()
        buffer.writeBytes(bytes)
        ring[nextSlot] = buffer
        nextSlot = (nextSlot + 1) % size
        return buffer
    }
}
