import CarillonRTC
import NIOCore

/// One direction of a simulated network link on a virtual clock (sans-IO): loss, delay, jitter, reordering,
/// duplication, a bandwidth cap with a drop-tail queue and periodic receiver stalls, all decided by a seeded generator.
///
/// Feed datagrams with ``send(_:now:)``; collect the ones that have arrived with ``receive(now:)``; wake up at
/// ``nextArrival``.
public struct SimulatedLink: Sendable {
    /// What the link does.
    public var conditions: LinkConditions
    private var random: SeededRandom
    private var inFlight: [(arrival: NIODeadline, order: UInt64, datagram: [UInt8])] = []
    private var linkFreeAt: NIODeadline?
    private var lastArrival: NIODeadline?
    private var sequence: UInt64 = 0

    /// Datagrams handed to the link.
    public private(set) var sent = 0
    /// Datagrams lost (randomly or to a full queue).
    public private(set) var dropped = 0
    /// Extra copies created by duplication.
    public private(set) var duplicated = 0

    /// Creates a link; equal seeds give equal behaviour.
    public init(conditions: LinkConditions = .perfect, seed: UInt64 = 1) {
        self.conditions = conditions
        self.random = SeededRandom(seed: seed)
    }

    /// When the next datagram arrives, if any is in flight.
    public var nextArrival: NIODeadline? { inFlight.map(\.arrival).min() }

    /// Puts a datagram on the link at `now`.
    public mutating func send(_ datagram: [UInt8], now: NIODeadline) {
        sent += 1
        var departure = now
        if let bandwidth = conditions.bandwidthBitsPerSecond, bandwidth > 0 {
            let start = max(now, linkFreeAt ?? now)
            let waitingBytes = Int64(Double((start - now).nanoseconds) * Double(bandwidth) / 8 / 1e9)
            if waitingBytes + Int64(datagram.count) > Int64(conditions.queueLimitBytes) {
                dropped += 1
                return
            }
            let serialization = TimeAmount.nanoseconds(Int64(Double(datagram.count * 8) / Double(bandwidth) * 1e9))
            departure = start + serialization
            linkFreeAt = departure
        }
        guard random.unit() >= conditions.lossRate else {
            dropped += 1
            return
        }
        enqueue(datagram, departure: departure)
        if conditions.duplicationRate > 0, random.unit() < conditions.duplicationRate {
            duplicated += 1
            enqueue(datagram, departure: departure)
        }
    }

    /// The datagrams that have arrived by `now`, in arrival order.
    public mutating func receive(now: NIODeadline) -> [[UInt8]] {
        let (due, waiting) = inFlight.reduce(into: ([(arrival: NIODeadline, order: UInt64, datagram: [UInt8])](),
                                                    [(arrival: NIODeadline, order: UInt64, datagram: [UInt8])]())) {
            if $1.arrival <= now { $0.0.append($1) } else { $0.1.append($1) }
        }
        inFlight = waiting
        return due.sorted { ($0.arrival, $0.order) < ($1.arrival, $1.order) }.map(\.datagram)
    }

    private mutating func enqueue(_ datagram: [UInt8], departure: NIODeadline) {
        var arrival = departure + conditions.delay
        if conditions.jitter > .zero {
            arrival = arrival + .nanoseconds(Int64(random.unit() * Double(conditions.jitter.nanoseconds)))
        }
        if let stalls = conditions.stalls, stalls.period > .zero {
            // Within a stall window (phase 0 to `duration` of each period) the datagram waits for the window's end.
            let phase = Int64(arrival.uptimeNanoseconds) % stalls.period.nanoseconds
            if phase < stalls.duration.nanoseconds { arrival = arrival + .nanoseconds(stalls.duration.nanoseconds - phase) }
        }
        if !conditions.allowsReordering, let lastArrival, arrival < lastArrival { arrival = lastArrival }
        lastArrival = max(lastArrival ?? arrival, arrival)
        sequence += 1
        inFlight.append((arrival, sequence, datagram))
    }
}
