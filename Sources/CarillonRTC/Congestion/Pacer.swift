import NIOCore

/// Spreads outgoing packets over time at a pacing rate (the target bitrate times a pacing factor), sans-IO.
///
/// Packets wait in one FIFO per priority; audio is never held back, retransmissions go before video. A byte budget
/// grows with the rate and time; after an idle spell it may be at most `burst` worth of bytes ahead, but a poll that
/// comes late while packets wait gets all the time owed (up to ``catchUpLimit``): a busy event loop's late timer must
/// not lower the rate, or the queue grows without end on a loaded machine (seen: 1 MB waiting at a 30 ms late server
/// tick). A packet leaves while the budget is positive and may overdraw it, the debt paid by later intervals, so the
/// long-run rate is exact. Call ``poll(now:)``
/// at ``nextDeadline`` (every `interval` while packets wait). When more than `maximumQueuedPackets` wait, the oldest
/// video packet is dropped (or, with no video waiting, the oldest retransmission) and counted. Owned by one event loop.
public struct Pacer: Sendable {
    /// How urgently a packet must leave.
    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        /// Audio: sent at the next poll whatever the budget.
        case audio = 0
        /// Retransmissions: before any video.
        case retransmission = 1
        /// Video and everything else.
        case video = 2

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A packet waiting to be paced.
    public struct Packet: Sendable, Equatable {
        /// The datagram, opaque to the pacer.
        public var bytes: [UInt8]
        /// Its size on the wire, in bytes, as charged against the budget.
        public var size: Int
        /// Its priority.
        public var priority: Priority

        /// Creates a packet; `size` defaults to the byte count.
        public init(bytes: [UInt8], size: Int? = nil, priority: Priority) {
            self.bytes = bytes
            self.size = size ?? bytes.count
            self.priority = priority
        }
    }

    /// Pacing rate over target bitrate; may change between polls (a sender that sees its link overused paces at the
    /// estimate itself: bursts above it only lengthen the bottleneck's queue).
    public var pacingFactor: Double
    /// Time between polls while packets wait.
    public let interval: TimeAmount
    /// How far ahead of the rate the budget may build while idle.
    public let burst: TimeAmount
    /// Most packets waiting before drops start.
    public let maximumQueuedPackets: Int

    private var queues: [CircularBuffer<Packet>]
    private var budget = 0.0
    private var lastPoll: NIODeadline?
    /// Whether packets were left waiting by the last poll: the time since is owed to them in full.
    private var backlogged = false

    /// The most time a late poll catches up on for packets that waited.
    public static let catchUpLimit = TimeAmount.milliseconds(100)

    /// The target bitrate last set, in bits per second.
    public private(set) var targetBitrate: Int
    /// Packets dropped because the queue was full.
    public private(set) var droppedPackets = 0
    /// Bytes waiting.
    public private(set) var queuedBytes = 0

    /// Creates a pacer for `targetBitrate` bits per second.
    public init(targetBitrate: Int, pacingFactor: Double = 2.5, interval: TimeAmount = .milliseconds(5),
                burst: TimeAmount = .milliseconds(5), maximumQueuedPackets: Int = 1000) {
        self.targetBitrate = max(0, targetBitrate)
        self.pacingFactor = pacingFactor
        self.interval = interval
        self.burst = burst
        self.maximumQueuedPackets = max(1, maximumQueuedPackets)
        queues = Priority.allCases.map { _ in CircularBuffer(initialCapacity: 64) }
    }

    /// The rate packets leave at, in bits per second.
    public var pacingBitrate: Double { Double(targetBitrate) * pacingFactor }

    /// Packets waiting.
    public var queuedPackets: Int { queues.reduce(0) { $0 + $1.count } }

    /// Sets a new target bitrate (from the bandwidth estimator); the pacing rate follows it.
    public mutating func setRate(targetBitrate: Int) {
        self.targetBitrate = max(0, targetBitrate)
    }

    /// Queues a packet.
    public mutating func enqueue(_ packet: Packet) {
        if queuedPackets >= maximumQueuedPackets, packet.priority != .audio {
            if let dropped = queues[Priority.video.rawValue].popFirst() ?? queues[Priority.retransmission.rawValue].popFirst() {
                queuedBytes -= dropped.size
                droppedPackets += 1
            }
        }
        queues[packet.priority.rawValue].append(packet)
        queuedBytes += packet.size
    }

    /// Takes out the waiting packets of `priority` for which `isObsolete` holds (a forwarder's packets of a stream it
    /// switched away from: sent late they only delay what replaces them), keeping the others in order, and returns
    /// them oldest first. O(packets waiting at that priority); allocates only when something is removed.
    public mutating func removeQueued(_ priority: Priority, where isObsolete: (Packet) -> Bool) -> [Packet] {
        let queue = queues[priority.rawValue]
        guard queue.contains(where: isObsolete) else { return [] }
        var kept = CircularBuffer<Packet>(initialCapacity: max(64, queue.count))
        var removed: [Packet] = []
        for packet in queue {
            if isObsolete(packet) {
                removed.append(packet)
                queuedBytes -= packet.size
            } else {
                kept.append(packet)
            }
        }
        queues[priority.rawValue] = kept
        if queuedPackets == 0 { backlogged = false }
        return removed
    }

    /// When to poll next: at once (a deadline already passed) for waiting audio or before the first poll, otherwise the
    /// next interval once the budget allows a packet; nil when nothing waits or the rate is zero.
    public var nextDeadline: NIODeadline? {
        guard let lastPoll else { return queuedPackets > 0 ? .uptimeNanoseconds(0) : nil }
        if !queues[Priority.audio.rawValue].isEmpty { return lastPoll }
        guard queuedPackets > 0 else { return nil }
        let rate = pacingBitrate / 8 / 1e9
        guard rate > 0 else { return nil }
        let wait = budget > 0 ? 0 : Int64((-budget + 1) / rate)
        return lastPoll + .nanoseconds(max(interval.nanoseconds, wait))
    }

    /// The queues drained within the budget, in order (audio goes first regardless).
    private static let budgetedPriorities: [Priority] = [.retransmission, .video]

    /// The packets to send at `now`, in order.
    public mutating func poll(now: NIODeadline) -> [Packet] {
        var sending: [Packet] = []
        poll(now: now) { sending.append($0) }
        return sending
    }

    /// Hands `send` each packet to send at `now`, in order, without collecting them: the packet is the caller's to
    /// change in place (it is no longer queued, so its bytes are not shared) and to keep.
    public mutating func poll(now: NIODeadline, _ send: (inout Packet) -> Void) {
        let rate = pacingBitrate / 8 / 1e9
        let ceiling = Double(burst.nanoseconds) * rate
        if let lastPoll {
            if now > lastPoll { budget += Double((now - lastPoll).nanoseconds) * rate }
        } else {
            budget = ceiling
        }
        lastPoll = max(lastPoll ?? now, now)
        budget = min(budget, backlogged ? max(ceiling, Double(Self.catchUpLimit.nanoseconds) * rate) : ceiling)
        while var packet = queues[Priority.audio.rawValue].popFirst() {
            budget -= Double(packet.size)
            queuedBytes -= packet.size
            send(&packet)
        }
        for priority in Self.budgetedPriorities {
            while budget > 0, var packet = queues[priority.rawValue].popFirst() {
                budget -= Double(packet.size)
                queuedBytes -= packet.size
                send(&packet)
            }
        }
        backlogged = queuedPackets > 0
    }
}
