import NIOCore

/// What the connections of one event loop send through a ``MediaPort``, gathered over one turn of that loop and
/// handed to the socket's loop in one batch.
///
/// The first datagram of a turn schedules a flush on the owning loop (`execute`, so it runs after the current task:
/// a mixer tick's packets for every attendee all make it in); the flush writes them all with one flush, directly when
/// the socket belongs to this loop, else with one `execute` on the socket's loop. So a tick of 250 attendees costs
/// two hops, not 250.
///
/// Threading: ``send(_:to:)`` only on `eventLoop`. `@unchecked Sendable` so the port can keep one per loop: the
/// loop is the lock for `queued`.
final class MediaPortOutbox: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let channel: any Channel
    private var queued: [AddressedEnvelope<ByteBuffer>] = []
    /// Told, on the socket's loop, how many datagrams and bytes each batch wrote.
    private let onWritten: @Sendable (Int, Int) -> Void

    init(eventLoop: any EventLoop, channel: any Channel, onWritten: @escaping @Sendable (Int, Int) -> Void) {
        self.eventLoop = eventLoop
        self.channel = channel
        self.onWritten = onWritten
    }

    /// Queues one datagram for `target`; it leaves at the end of this turn of the loop.
    func send(_ bytes: [UInt8], to target: STUNAddress) {
        eventLoop.preconditionInEventLoop()
        if queued.isEmpty { eventLoop.execute { self.flush() } }
        queued.append(AddressedEnvelope(remoteAddress: target.socketAddress, data: channel.allocator.buffer(bytes: bytes)))
    }

    private func flush() {
        guard !queued.isEmpty else { return }
        let batch = queued
        queued.removeAll(keepingCapacity: true)
        let channel = self.channel
        let onWritten = self.onWritten
        if channel.eventLoop.inEventLoop {
            Self.write(batch, to: channel, onWritten: onWritten)
        } else {
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
