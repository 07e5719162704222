import NIOCore

/// Estimates network delay variation from transit delays (arrival time minus RTP timestamp time), sans-IO.
///
/// Each sample's relative delay is its transit minus the smallest transit of the last second, so a slowly drifting
/// sender clock adds at most a second's worth of drift; the estimate is a percentile of the relative delays over the
/// window. Storage is a fixed ring, and the sort uses a reused scratch array: no growth after warm-up.
struct DelayVariationEstimator: Sendable {
    private struct Sample: Sendable {
        var arrival: Int64
        var transit: Int64
        var relative: Int64
    }

    /// Samples needed before ``estimate`` is given: enough that one fast packet does not set the target.
    static let minimumSamples = 25
    private static let baselineWindow: Int64 = 1_000_000_000
    private static let ringSize = 1024

    private let window: Int64
    private let percentile: Double
    private var ring: [Sample]
    private var head = 0
    private var count = 0
    private var scratch: [Int64] = []

    /// The percentile of relative delay in nanoseconds, once enough samples are in the window.
    private(set) var estimate: Int64?

    init(window: TimeAmount, percentile: Double) {
        self.window = window.nanoseconds
        self.percentile = percentile
        ring = Array(repeating: Sample(arrival: 0, transit: 0, relative: 0), count: Self.ringSize)
        scratch.reserveCapacity(Self.ringSize)
    }

    mutating func reset() {
        head = 0
        count = 0
        estimate = nil
    }

    /// Records a packet that arrived at `arrival` (nanoseconds on any fixed base) with `transit` nanoseconds.
    mutating func record(arrival: Int64, transit: Int64) {
        while count > 0, ring[head].arrival < arrival - window || count == Self.ringSize {
            head = (head + 1) % Self.ringSize
            count -= 1
        }
        var baseline = transit
        var index = count
        while index > 0 {
            let sample = ring[(head + index - 1) % Self.ringSize]
            if sample.arrival < arrival - Self.baselineWindow { break }
            baseline = min(baseline, sample.transit)
            index -= 1
        }
        ring[(head + count) % Self.ringSize] = Sample(arrival: arrival, transit: transit, relative: transit - baseline)
        count += 1
        guard count >= Self.minimumSamples else {
            estimate = nil
            return
        }
        scratch.removeAll(keepingCapacity: true)
        for offset in 0..<count { scratch.append(ring[(head + offset) % Self.ringSize].relative) }
        scratch.sort()
        let rank = Int((Double(count - 1) * percentile).rounded(.up))
        estimate = scratch[min(rank, count - 1)]
    }
}
