import NIOCore

/// The receiving side of transport-wide congestion control, sans-IO: records each packet's transport-wide sequence
/// number and arrival time and reports them to the media sender in ``TransportFeedback`` messages.
///
/// A report is due `interval` after the previous one, or as soon as `maximumPendingPackets` packets wait. Each report
/// covers every sequence number from the end of the previous report to the newest one seen, so gaps go out as lost.
/// A packet that arrives after its number was reported lost moves the next report's start back to it, so the sender
/// learns its arrival after all; duplicates keep their first arrival. Arrivals are remembered for the last
/// `historySize` sequence numbers without allocating per packet. Owned by one event loop; call ``poll(now:)`` at
/// ``nextDeadline``.
public struct TransportFeedbackGenerator: Sendable {
    /// Time between reports while packets arrive.
    public var interval: TimeAmount
    /// Packets waiting that make a report due at once.
    public var maximumPendingPackets: Int
    /// SSRC put in the reports as their sender.
    public var senderSSRC: UInt32
    /// SSRC put in the reports as the media source.
    public var mediaSSRC: UInt32

    private static let unknown = Int64.min
    private let historyMask: Int64
    /// Arrival times in uptime nanoseconds, indexed by extended sequence number modulo the history size.
    private var arrivals: [Int64]
    private var unwrapper = SequenceUnwrapper()
    private var newest: Int64?
    /// The first sequence number the next report covers.
    private var windowStart: Int64 = 0
    private var pending = 0
    private var lastReport: NIODeadline?
    private var firstPendingArrival: NIODeadline?
    private var fullAt: NIODeadline?
    private var feedbackCount: UInt8 = 0

    /// Packets recorded (duplicates and too-old ones excluded).
    public private(set) var packetsRecorded = 0
    /// Packets ignored because they were duplicates or older than the history.
    public private(set) var packetsIgnored = 0

    /// Creates a generator; `historySize` is rounded up to a power of two.
    public init(senderSSRC: UInt32 = 0, mediaSSRC: UInt32 = 0, interval: TimeAmount = .milliseconds(50),
                maximumPendingPackets: Int = 100, historySize: Int = 4096) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.interval = interval
        self.maximumPendingPackets = max(1, maximumPendingPackets)
        var size = 64
        while size < historySize { size <<= 1 }
        historyMask = Int64(size - 1)
        arrivals = [Int64](repeating: Self.unknown, count: size)
    }

    /// Packets received since the last report (or moved back into the next one by a late arrival).
    public var pendingPackets: Int { pending }

    /// When ``poll(now:)`` has a report to give, or nil when nothing is waiting.
    public var nextDeadline: NIODeadline? {
        guard pending > 0, let firstPendingArrival else { return nil }
        let periodic = (lastReport ?? firstPendingArrival) + interval
        return fullAt.map { min($0, periodic) } ?? periodic
    }

    /// Records an arrived packet by its transport-wide sequence number (from the header extension).
    public mutating func received(transportSequenceNumber: UInt16, arrival: NIODeadline) {
        let extended = unwrapper.unwrap(transportSequenceNumber)
        let capacity = historyMask + 1
        if let newest {
            if extended > newest {
                // Forget what lay in the slots the new numbers take over.
                for sequence in max(newest + 1, extended - capacity + 1)...extended { arrivals[slot(sequence)] = Self.unknown }
                self.newest = extended
                windowStart = max(windowStart, extended - capacity + 1)
            } else if extended <= newest - capacity || arrivals[slot(extended)] != Self.unknown {
                packetsIgnored += 1
                return
            }
        } else {
            newest = extended
            windowStart = extended
        }
        arrivals[slot(extended)] = Int64(arrival.uptimeNanoseconds)
        windowStart = min(windowStart, extended)
        packetsRecorded += 1
        pending += 1
        if firstPendingArrival == nil { firstPendingArrival = arrival }
        if pending >= maximumPendingPackets, fullAt == nil { fullAt = arrival }
    }

    /// The reports due at `now` (usually one; more when arrivals are too far apart for one message's deltas).
    public mutating func poll(now: NIODeadline) -> [TransportFeedback] {
        guard let deadline = nextDeadline, now >= deadline, let newest else { return [] }
        var reports: [TransportFeedback] = []
        var current: TransportFeedback?
        var referenceTicks: Int64 = 0
        for sequence in windowStart...newest {
            let arrival = arrivals[slot(sequence)]
            guard arrival != Self.unknown else { continue }
            let number = UInt16(truncatingIfNeeded: sequence)
            let ticks = Self.ticks(arrival)
            if current?.addReceived(sequenceNumber: number, arrivalTicks: ticks - referenceTicks) == true { continue }
            // Too far from the previous arrival for a delta: a new message starts where the previous one stopped.
            if let current { reports.append(current) }
            let base = current.map(\.nextSequenceNumber) ?? UInt16(truncatingIfNeeded: windowStart)
            let reference = arrival / TransportFeedback.referenceTimeUnitNanoseconds
            referenceTicks = reference * TransportFeedback.ticksPerReferenceUnit
            var next = TransportFeedback(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: base,
                                         referenceTime: UInt32(truncatingIfNeeded: reference), feedbackPacketCount: feedbackCount)
            feedbackCount &+= 1
            next.addReceived(sequenceNumber: number, arrivalTicks: ticks - referenceTicks)
            current = next
        }
        if let current { reports.append(current) }
        windowStart = newest + 1
        pending = 0
        firstPendingArrival = nil
        fullAt = nil
        lastReport = now
        return reports
    }

    private func slot(_ sequence: Int64) -> Int { Int(sequence & historyMask) }

    /// Uptime nanoseconds in 250 µs ticks, rounded to nearest.
    private static func ticks(_ nanoseconds: Int64) -> Int64 {
        (nanoseconds + TransportFeedback.tickNanoseconds / 2) / TransportFeedback.tickNanoseconds
    }
}
