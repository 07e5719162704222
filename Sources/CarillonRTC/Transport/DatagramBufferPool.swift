/// A bounded free list of byte arrays, each with room for a full datagram, so that a path which builds one datagram
/// per packet (the SFU's copy of a video packet for each receiver) reuses storage instead of allocating it.
///
/// ``take()`` hands out an empty array with at least ``bufferCapacity`` bytes of capacity: a recycled one while the
/// pool holds any, else a fresh allocation (counted in ``freshAllocations``). Whoever ends the datagram's life (here
/// the media shell, once the socket's outbox has copied it) gives it back with ``recycle(_:)``. The pool keeps at most
/// ``limit`` arrays: what comes back beyond that, or too small to hold a datagram (an audio or RTCP packet), is let go,
/// so the pool's memory is bounded by `limit × bufferCapacity` whatever bursts pass through it.
///
/// Buffers are Swift arrays, so reuse can never alias two live datagrams: an array given back while someone else
/// still holds its storage (it was kept, or given back twice) is copied on its next write, which costs one
/// allocation and nothing else. Steady-state reuse needs the caller to hand each array back as its only reference.
///
/// Cost: ``take()`` and ``recycle(_:)`` are O(1) and allocate nothing once the free list has grown to its size.
/// Threading: a value owned by one event loop's state (a meeting's core); not shared.
public struct DatagramBufferPool: Sendable {
    /// The capacity a pooled array has at least: a full-size datagram (1500-byte MTU) with its SRTP tag.
    public static let bufferCapacity = 1_500
    /// The most arrays the pool keeps.
    public let limit: Int
    private var free: [[UInt8]] = []
    /// Arrays handed out that the pool did not have and allocated.
    public private(set) var freshAllocations = 0
    /// Arrays handed out from the free list.
    public private(set) var reused = 0
    /// Arrays given back and let go: the pool was full, or they could not hold a datagram.
    public private(set) var released = 0

    /// A pool that keeps at most `limit` arrays (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
        free.reserveCapacity(self.limit)
    }

    /// How many arrays the pool holds now.
    public var count: Int { free.count }

    /// An empty array with capacity for a full datagram: recycled when the pool has one, else newly allocated.
    public mutating func take() -> [UInt8] {
        if let buffer = free.popLast() {
            reused += 1
            return buffer
        }
        freshAllocations += 1
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.bufferCapacity)
        return buffer
    }

    /// Gives back a spent array (consumed); returns whether the pool kept it. It is kept emptied, with its storage,
    /// when there is room and it can hold a full datagram; otherwise it is released.
    @discardableResult
    public mutating func recycle(_ buffer: consuming [UInt8]) -> Bool {
        var buffer = consume buffer
        guard free.count < limit, buffer.capacity >= Self.bufferCapacity else {
            released += 1
            return false
        }
        // Keeps the storage when this is its only reference; a shared one is copied here, once, and never written
        // under its other holder.
        buffer.removeAll(keepingCapacity: true)
        free.append(buffer)
        return true
    }
}
