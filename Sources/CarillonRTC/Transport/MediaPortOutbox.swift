import NIOCore

/// What the connections of one event loop send through a ``MediaPort``, gathered over one turn of that loop and
/// handed to the socket's loop in one batch.
///
/// The first datagram of a turn schedules a flush on the owning loop (`execute`, so it runs after the current task:
/// a mixer tick's packets for every attendee all make it in); the flush writes them all with one flush, directly when
/// the socket belongs to this loop, else with one `execute` on the socket's loop. So a tick of 250 attendees costs
/// two hops, not 250.
///
/// Datagrams are copied into a ring of byte buffers (``recycledBuffers`` by default): by the time the ring comes
/// round, the socket has written and released a buffer, so it is reused in place and sending allocates nothing (a
/// buffer the socket still holds, in a burst larger than the ring, is copied on write: correct, one allocation). The
/// ring costs about 1.5 KB a slot per loop.
///
/// Threading: ``send(_:to:)`` only on `eventLoop`. `@unchecked Sendable` so the port can keep one per loop: the
/// loop is the lock for `queued` and the ring.
final class MediaPortOutbox: @unchecked Sendable {
    /// Slots in the ring of send buffers, by default.
    static let recycledBuffers = 1_024
    /// The capacity a new buffer starts with: a full-size datagram.
    static let bufferCapacity = 1_500

    private let eventLoop: any EventLoop
    private let channel: any Channel
    private var queued: [AddressedEnvelope<ByteBuffer>] = []
    /// Buffers handed to the socket before; each slot keeps one reference so its storage can be reused.
    private var ring: [ByteBuffer?] = []
    private var nextSlot = 0
    private let ringSize: Int
    /// Told, on the socket's loop, how many datagrams and bytes each batch wrote.
    private let onWritten: @Sendable (Int, Int) -> Void

    init(eventLoop: any EventLoop, channel: any Channel, ringSize: Int = MediaPortOutbox.recycledBuffers,
         onWritten: @escaping @Sendable (Int, Int) -> Void) {
        self.ringSize = max(1, ringSize)
        self.eventLoop = eventLoop
        self.channel = channel
        self.onWritten = onWritten
    }

    /// Queues one datagram for `target`; it leaves at the end of this turn of the loop.
    func send(_ bytes: [UInt8], to target: STUNAddress) {
        eventLoop.preconditionInEventLoop()
        if queued.isEmpty { eventLoop.execute { self.flush() } }
        queued.append(AddressedEnvelope(remoteAddress: target.socketAddress, data: recycledBuffer(holding: bytes)))
    }

    /// The next slot's buffer, cleared and holding `bytes`; the slot keeps a reference for the next round.
    private func recycledBuffer(holding bytes: [UInt8]) -> ByteBuffer {
        if ring.count < ringSize {
            var buffer = channel.allocator.buffer(capacity: max(bytes.count, Self.bufferCapacity))
            buffer.writeBytes(bytes)
            ring.append(buffer)
            return buffer
        }
        // Moved out of the slot, so the ring's reference does not count against uniqueness.
        var buffer = ring[nextSlot].take() ?? channel.allocator.buffer(capacity: Self.bufferCapacity)
        buffer.clear()
        buffer.writeBytes(bytes)
        ring[nextSlot] = buffer
        nextSlot = (nextSlot + 1) % ringSize
        return buffer
    }

    private func flush() {
        guard !queued.isEmpty else { return }
        let channel = self.channel
        let onWritten = self.onWritten
        if channel.eventLoop.inEventLoop {
            // Written before the list is emptied, so it keeps its storage: no copy of the list either.
            Self.write(queued, to: channel, onWritten: onWritten)
            queued.removeAll(keepingCapacity: true)
        } else {
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            channel.eventLoop.execute { Self.write(batch, to: channel, onWritten: onWritten) }
        }
    }

    private static func write(_ batch: [AddressedEnvelope<ByteBuffer>], to channel: any Channel,
                              onWritten: (Int, Int) -> Void) {
        var bytes = 0
        for envelope in batch {
            bytes += envelope.data.readableBytes
            channel.write(envelope, promise: nil)
        }
        channel.flush()
        onWritten(batch.count, bytes)
    }
}
