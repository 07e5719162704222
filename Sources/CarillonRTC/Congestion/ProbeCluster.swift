import NIOCore

/// One bandwidth probe of a ``SendSideBandwidthEstimator``: a short window in which the sender sends at a chosen
/// rate (its media topped up with padding), and the rate the receiver's transport-wide feedback shows got through.
///
/// Every packet sent inside the window counts (media and padding: the bottleneck sees both). Once the window has
/// closed and the feedback reported every packet of it (or ``feedbackTimeout`` after its end), the result is the
/// smaller of the send rate and the receive rate, measured between the first and last packet; a receive rate under
/// 90 % of the send rate means a queue grew (the delay rose), and the result is then 95 % of the receive rate. A probe
/// with more than 20 % of its packets lost, or fewer than ``minimumPackets`` reported, gives no result.
///
/// A value owned by the estimator; O(1) per packet sent, O(packets in the window) once, when it is evaluated (the
/// acknowledgements are kept in an array reserved for them).
public struct ProbeCluster: Sendable {
    /// The least number of received packets a probe needs for a result.
    public static let minimumPackets = 5
    /// How long after the window's end missing feedback is waited for.
    public static let feedbackTimeout = TimeAmount.milliseconds(1_000)

    /// The rate the probe aims at, bits per second.
    public let bitrate: Int
    /// The window's start and end (uptime nanoseconds).
    let start: Int64
    let end: Int64
    /// The transport-wide sequence numbers (unwrapped) of the window: from the first sent in it, up to the last.
    private(set) var firstSequence: Int64?
    private(set) var lastSequence: Int64?
    private(set) var sentBytes = 0
    private var firstSend: Int64?
    private var lastSend: Int64?
    private var lastSize = 0
    private var received: [(arrival: Int64, size: Int)] = []
    private var lost = 0

    /// Opens a window of `duration` from `start` at `bitrate`.
    init(bitrate: Int, start: NIODeadline, duration: TimeAmount) {
        self.bitrate = bitrate
        self.start = Int64(start.uptimeNanoseconds)
        end = self.start + duration.nanoseconds
        received.reserveCapacity(64)
    }

    /// Whether a packet sent at `time` belongs to the window.
    func contains(_ time: Int64) -> Bool { time >= start && time < end }

    /// The bytes the window still wants sent at `now` to keep to its rate (padding to add), 0 when none.
    func bytesDue(at now: NIODeadline) -> Int {
        let time = Int64(now.uptimeNanoseconds)
        guard contains(time) else { return 0 }
        let wanted = Double(bitrate) / 8 * Double(time - start) / 1e9
        return max(0, Int(wanted) - sentBytes)
    }

    /// Records a packet of the window as it leaves.
    mutating func sent(sequence: Int64, size: Int, at time: Int64) {
        firstSequence = firstSequence ?? sequence
        lastSequence = sequence
        sentBytes += size
        firstSend = firstSend ?? time
        lastSend = time
        lastSize = size
    }

    /// Records feedback about one of its packets: its arrival (receiver clock, nanoseconds) or nil when lost.
    mutating func reported(arrival: Int64?, size: Int) {
        if let arrival { received.append((arrival, size)) } else { lost += 1 }
    }

    /// The packets sent in the window.
    var sentCount: Int {
        guard let firstSequence, let lastSequence else { return 0 }
        return Int(lastSequence - firstSequence + 1)
    }

    /// Whether the probe can be evaluated at `now`: its window closed and every packet was reported, or the wait for
    /// feedback is over.
    func isComplete(at now: NIODeadline) -> Bool {
        let time = Int64(now.uptimeNanoseconds)
        guard time >= end else { return false }
        return received.count + lost >= sentCount || time >= end + Self.feedbackTimeout.nanoseconds
    }

    /// The rate that got through (bits per second), or nil when the probe says nothing (too few packets, too much
    /// loss). Sorts the acknowledgements by arrival.
    mutating func result() -> Int? {
        let count = sentCount
        guard received.count >= Self.minimumPackets, Double(received.count) >= 0.8 * Double(count),
              let firstSend, let lastSend, lastSend > firstSend else { return nil }
        received.sort { $0.arrival < $1.arrival }
        guard let first = received.first, let last = received.last, last.arrival > first.arrival else { return nil }
        let sendRate = Double(sentBytes - lastSize) * 8 / (Double(lastSend - firstSend) / 1e9)
        let receivedBytes = received.reduce(0) { $0 + $1.size }
        let receiveRate = Double(receivedBytes - first.size) * 8 / (Double(last.arrival - first.arrival) / 1e9)
        if receiveRate < 0.9 * sendRate { return Int(0.95 * receiveRate) }
        return Int(min(sendRate, receiveRate))
    }
}
