/// The delay-based AIMD rate controller: raises the estimate while the path keeps up (multiplicatively, about 8 % a
/// second, while the link's capacity is unknown; additively, about a packet per response time, near the capacity last
/// measured), holds it while a queue drains, and cuts it to a fraction of the acknowledged throughput on overuse.
struct DelayBasedRateController: Sendable {
    private enum State {
        case hold
        case increase
        case decrease
    }

    let minimumBitrate: Double
    let maximumBitrate: Double
    /// Fraction of the acknowledged throughput kept on overuse.
    let backoff = 0.85
    /// Multiplicative growth rate far from convergence: ln(1.08), so updates compound to 8 % a second.
    let growthRate = 0.077
    /// Packet size assumed for the additive step, in bits.
    let packetBits = 1200.0 * 8

    private(set) var bitrate: Double
    private var state = State.increase
    private var lastUpdate: Int64?
    /// Throughput measured at past overuses, in bits per second, with its normalised variance: the link capacity.
    private var capacityMean: Double?
    private var capacityVariance = 0.4

    init(minimumBitrate: Double, maximumBitrate: Double, startBitrate: Double) {
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
        bitrate = min(max(startBitrate, minimumBitrate), maximumBitrate)
    }

    /// Whether the estimate is near the capacity measured at earlier overuses (growth is additive there).
    var isNearCapacity: Bool { capacityMean != nil }

    /// Applies one detector verdict at `now` (nanoseconds); `acknowledged` is the throughput the receiver saw.
    mutating func update(_ usage: BandwidthUsage, acknowledged: Double?, roundTripMilliseconds: Double, now: Int64) {
        switch usage {
        case .overusing: state = .decrease
        case .underusing: state = .hold
        case .normal: if state == .hold { state = .increase }
        }
        let elapsed = lastUpdate.map { min(Double(now - $0) / 1e9, 1) } ?? 0
        lastUpdate = now
        switch state {
        case .hold:
            break
        case .increase:
            if let acknowledged, let mean = capacityMean, acknowledged > mean + 3 * deviation(mean) {
                // Well above what the link carried before: it changed, learn it again.
                capacityMean = nil
            }
            var next: Double
            if capacityMean != nil {
                let responseSeconds = (roundTripMilliseconds + 100) / 1000
                next = bitrate + max(4000, packetBits / responseSeconds) * elapsed
            } else {
                next = bitrate + max(1000, bitrate * growthRate * elapsed)
            }
            // Never run far ahead of what actually gets through.
            if let acknowledged { next = min(next, max(bitrate, 1.5 * acknowledged + 10_000)) }
            bitrate = next
        case .decrease:
            var next = backoff * (acknowledged ?? bitrate)
            if let acknowledged {
                if let mean = capacityMean, acknowledged < mean - 3 * deviation(mean) { capacityMean = nil }
                learnCapacity(acknowledged)
            }
            next = min(next, bitrate)
            bitrate = next
            state = .hold
        }
        bitrate = min(max(bitrate, minimumBitrate), maximumBitrate)
    }

    /// Takes a measured rate (a bandwidth probe's) as the estimate: the capacity learnt at earlier overuses no longer
    /// holds, so growth is multiplicative again until the next overuse.
    mutating func setEstimate(_ measured: Double) {
        bitrate = min(max(measured, minimumBitrate), maximumBitrate)
        capacityMean = nil
        if state == .decrease { state = .hold }
    }

    private func deviation(_ mean: Double) -> Double { (capacityVariance * mean).squareRoot() }

    private mutating func learnCapacity(_ sample: Double) {
        guard let mean = capacityMean else {
            capacityMean = sample
            return
        }
        let updated = 0.95 * mean + 0.05 * sample
        capacityMean = updated
        let normalisedError = (updated - sample) * (updated - sample) / max(updated, 1)
        capacityVariance = min(max(0.95 * capacityVariance + 0.05 * normalisedError, 0.4), 2.5)
    }
}
