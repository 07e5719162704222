import NIOCore

/// What the connections of one event loop send through a ``MediaPort``, gathered over one turn of that loop and
/// handed to the socket's loop in one batch.
///
/// The first datagram of a turn schedules a flush on the owning loop (`execute`, so it runs after the current task:
/// a mixer tick's packets for every attendee all make it in); the flush writes them all with one flush, directly when
/// the socket belongs to this loop, else with one `execute` on the socket's loop. So a tick of 250 attendees costs
/// two hops, not 250.
///
/// Datagrams are copied into a ``SendBufferRing``: once the ring is warm, sending allocates nothing, and the array
/// a datagram came in goes back to its sender for reuse (``PeerConnectionDriver/sendRTP(_:)`` returns it).
///
/// Threading: ``send(_:to:)`` only on `eventLoop`. `@unchecked Sendable` so the port can keep one per loop: the
/// loop is the lock for `queued` and the ring.
final class MediaPortOutbox: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let channel: any Channel
    private var queued: [AddressedEnvelope<ByteBuffer>] = []
    private var ring: SendBufferRing
    /// Received datagrams this turn's connections are done with, on their way back to the socket loop's pool.
    private var givenBack: [[UInt8]] = []
    /// Told, on the socket's loop, how many datagrams and bytes each batch wrote.
    private let onWritten: @Sendable (Int, Int) -> Void
    /// Handed, on the socket's loop, the received datagrams given back in a turn (to move out of the list).
    private let onGivenBack: @Sendable (inout [[UInt8]]) -> Void

    init(eventLoop: any EventLoop, channel: any Channel, ringSize: Int = SendBufferRing.defaultSize,
         onWritten: @escaping @Sendable (Int, Int) -> Void,
         onGivenBack: @escaping @Sendable (inout [[UInt8]]) -> Void = { _ in }) {
        ring = SendBufferRing(size: ringSize, allocator: channel.allocator)
        self.eventLoop = eventLoop
        self.channel = channel
        self.onWritten = onWritten
        self.onGivenBack = onGivenBack
    }

    /// Queues one datagram for `target`; it leaves at the end of this turn of the loop.
    func send(_ bytes: [UInt8], to target: SocketAddress) {
        eventLoop.preconditionInEventLoop()
        if queued.isEmpty, givenBack.isEmpty { eventLoop.execute { self.flush() } }
        queued.append(AddressedEnvelope(remoteAddress: target, data: ring.buffer(holding: bytes)))
    }

    /// Takes back a received datagram (consumed) that a connection of this loop has handled; it goes to the
    /// socket's loop with this turn's batch, not in a hop of its own.
    func giveBack(_ datagram: consuming [UInt8]) {
        eventLoop.preconditionInEventLoop()
        if queued.isEmpty, givenBack.isEmpty { eventLoop.execute { self.flush() } }
        givenBack.append(datagram)
    }

    private func flush() {
        guard !queued.isEmpty || !givenBack.isEmpty else { return }
        let channel = self.channel
        let onWritten = self.onWritten, onGivenBack = self.onGivenBack
        if channel.eventLoop.inEventLoop {
            // Written before the list is emptied, so it keeps its storage: no copy of the list either.
            if !queued.isEmpty { Self.write(queued, to: channel, onWritten: onWritten) }
            queued.removeAll(keepingCapacity: true)
            if !givenBack.isEmpty { onGivenBack(&givenBack) }
            givenBack.removeAll(keepingCapacity: true)
        } else {
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            // Swapped out, not copied, so each array stays the only reference to its storage.
            var spent: [[UInt8]] = []
            swap(&spent, &givenBack)
            // Consumed: the socket's loop may run the hand-over before this turn ends, and must hold the only reference.
            let handOver = GivenBackDatagrams(consume spent)
            channel.eventLoop.execute {
                if !batch.isEmpty { Self.write(batch, to: channel, onWritten: onWritten) }
                handOver.deliver(to: onGivenBack)
            }
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

/// Received datagrams carried from a connection's loop to the socket's in the outbox's hop. `@unchecked Sendable`:
/// written before the hop, read once after it, never at the same time.
private final class GivenBackDatagrams: @unchecked Sendable {
    private var datagrams: [[UInt8]]

    init(_ datagrams: [[UInt8]]) {
        self.datagrams = datagrams
    }

    func deliver(to receiver: (inout [[UInt8]]) -> Void) {
        guard !datagrams.isEmpty else { return }
        receiver(&datagrams)
        datagrams = []
    }
}
