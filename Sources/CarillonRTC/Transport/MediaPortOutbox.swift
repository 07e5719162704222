import NIOCore

/// What the connections of one event loop send through a ``MediaPort``, gathered over one turn of that loop and
/// written with one flush at its end.
///
/// The first datagram of a turn schedules the flush on the owning loop (`execute`, so it runs after the current task:
/// a mixer tick's packets for every attendee all make it in). The flush writes through the outbox's writer: a send
/// channel over the port's socket (``MediaPort`` gives each loop of its group the next loop's, so a meeting's work and
/// the kernel's send path of its datagrams run on two cores), handed over in one `execute` when the writer is on
/// another loop, written in place when it is on this one. Without a send channel (a loop outside the port's group, or
/// after the send channel failed) the writer is the socket's own channel. Either way a tick of 250 attendees costs
/// one flush and at most one hop, not 250.
///
/// Datagrams are copied into a ``SendBufferRing``: once the ring is warm, sending allocates nothing, and the array
/// a datagram came in goes back to its sender for reuse (``PeerConnectionDriver/sendRTP(_:)`` returns it).
///
/// Received datagrams the loop's connections are done with go back to the socket loop's pool at the end of the turn:
/// in place on the socket's loop, with the turn's hand-over when the writer is on the socket's loop, else in one
/// `execute` of their own.
///
/// Threading: ``send(_:to:)`` and ``giveBack(_:)`` only on `eventLoop`. `@unchecked Sendable` so the port can keep
/// one per loop: the loop is the lock for everything here.
final class MediaPortOutbox: @unchecked Sendable {
    /// What one flush wrote, reported to the owner (on the writing loop).
    struct Written {
        /// Datagrams written.
        var datagrams = 0
        /// Their bytes.
        var bytes = 0
    }

    private let eventLoop: any EventLoop
    private let socketChannel: any Channel
    /// The channel the flushes write through: the send channel while it is open, else the socket's.
    private(set) var writer: any Channel
    private var queued: [AddressedEnvelope<ByteBuffer>] = []
    private var ring: SendBufferRing
    /// Received datagrams this loop's connections are done with, on their way back to the socket loop's pool.
    private var givenBack: [[UInt8]] = []
    /// Told, on the writing loop, what each flush wrote.
    private let onWritten: @Sendable (Written) -> Void
    /// Handed, on the socket's loop, received datagrams given back (to move out of the list).
    private let onGivenBack: @Sendable (inout [[UInt8]]) -> Void

    /// An outbox on `eventLoop` writing through `sendChannel` (a channel over the port's socket, on any loop) when
    /// given, else through `socketChannel`.
    init(eventLoop: any EventLoop, socketChannel: any Channel, sendChannel: (any Channel)? = nil,
         ringSize: Int = SendBufferRing.defaultSize,
         onWritten: @escaping @Sendable (Written) -> Void,
         onGivenBack: @escaping @Sendable (inout [[UInt8]]) -> Void = { _ in }) {
        ring = SendBufferRing(size: ringSize, allocator: socketChannel.allocator)
        self.eventLoop = eventLoop
        self.socketChannel = socketChannel
        self.onWritten = onWritten
        self.onGivenBack = onGivenBack
        writer = sendChannel ?? socketChannel
    }

    /// Queues one datagram for `target`; it leaves at the end of this turn of the loop.
    func send(_ bytes: [UInt8], to target: SocketAddress) {
        eventLoop.preconditionInEventLoop()
        scheduleFlush()
        queued.append(AddressedEnvelope(remoteAddress: target, data: ring.buffer(holding: bytes)))
    }

    /// Takes back a received datagram (consumed) that a connection of this loop has handled; it goes to the
    /// socket's loop with others, not in a hop of its own.
    func giveBack(_ datagram: consuming [UInt8]) {
        eventLoop.preconditionInEventLoop()
        scheduleFlush()
        givenBack.append(datagram)
    }

    /// The first datagram of a turn, either way, schedules the flush; a flush empties both lists.
    private func scheduleFlush() {
        if queued.isEmpty, givenBack.isEmpty { eventLoop.execute { self.flush() } }
    }

    private func flush() {
        let onWritten = self.onWritten, onGivenBack = self.onGivenBack
        let socketLoop = socketChannel.eventLoop
        if socketLoop === eventLoop, !givenBack.isEmpty {
            onGivenBack(&givenBack)
            givenBack.removeAll(keepingCapacity: true)
        }
        let writer = self.writer
        if writer.eventLoop === eventLoop {
            // Written before the list is emptied, so it keeps its storage: no copy of the list either.
            if !queued.isEmpty { Self.write(queued, to: writer, onWritten: onWritten) }
            queued.removeAll(keepingCapacity: true)
        } else if !queued.isEmpty {
            let batch = queued
            queued.removeAll(keepingCapacity: true)
            // What goes back to the socket's loop rides along when the writer is there.
            let handOver = writer.eventLoop === socketLoop ? takeGivenBack() : nil
            writer.eventLoop.execute {
                Self.write(batch, to: writer, onWritten: onWritten)
                handOver?.deliver(to: onGivenBack)
            }
        }
        if let handOver = takeGivenBack() {
            socketLoop.execute { handOver.deliver(to: onGivenBack) }
        }
    }

    /// The datagrams given back so far, moved out for a hop to the socket's loop; nil when there are none.
    private func takeGivenBack() -> GivenBackDatagrams? {
        guard !givenBack.isEmpty else { return nil }
        // Swapped out, not copied, so each array stays the only reference to its storage; consumed into the hand-over,
        // since the socket's loop may run it before this turn ends and must hold the only reference.
        var spent: [[UInt8]] = []
        swap(&spent, &givenBack)
        return GivenBackDatagrams(consume spent)
    }

    /// The send channel closed under the outbox (NIO closes a datagram channel on a write error it does not count as
    /// recoverable, such as `EPERM` from a firewall rule): from now on the outbox writes through the socket's channel.
    /// What the failed flush held is lost, as a router drops a queue. Callable from any loop (it hops to `eventLoop`).
    func sendChannelClosed() {
        guard eventLoop.inEventLoop else {
            eventLoop.execute { self.sendChannelClosed() }
            return
        }
        writer = socketChannel
    }

    private static func write(_ batch: [AddressedEnvelope<ByteBuffer>], to channel: any Channel,
                              onWritten: (Written) -> Void) {
        var written = Written(datagrams: batch.count)
        for envelope in batch {
            written.bytes += envelope.data.readableBytes
            channel.write(envelope, promise: nil)
        }
        channel.flush()
        onWritten(written)
    }
}

/// Received datagrams carried from a connection's loop to the socket's. `@unchecked Sendable`: written before the
/// hop, read once after it, never at the same time.
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
