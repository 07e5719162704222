/// Estimates network delay variation from transit delays (arrival time minus RTP timestamp time), sans-IO.
///
/// Each sample's relative delay is its transit minus the smallest transit of the last second, so a slowly drifting
/// sender clock adds at most a second's worth of drift; the estimate is a percentile of the relative delays over the
/// window, read from a histogram of 1 ms bins. Storage is a fixed ring and a fixed histogram: no growth, no sorting.
struct DelayVariationEstimator: Sendable {
    private struct Sample: Sendable {
        var arrival: Int64
        var transit: Int64
        var bin: Int
    }

    /// Samples needed before ``estimate`` is given: enough that one fast packet does not set the target.
    static let minimumSamples = 25
    private static let baselineWindow: Int64 = 1_000_000_000
    private static let ringSize = 1024
    private static let binWidth: Int64 = 1_000_000
    /// Relative delays of a second or more share the top bin; the target is capped far below that anyway.
    private static let binCount = 1000

    private let window: Int64
    private let percentile: Double
    private var ring: [Sample]
    private var head = 0
    private var count = 0
    private var histogram: [Int]

    /// The percentile of relative delay in nanoseconds (rounded down to the bin), once enough samples are in the
    /// window.
    private(set) var estimate: Int64?

    init(windowNanoseconds: Int64, percentile: Double) {
        window = windowNanoseconds
        self.percentile = percentile
        ring = Array(repeating: Sample(arrival: 0, transit: 0, bin: 0), count: Self.ringSize)
        histogram = Array(repeating: 0, count: Self.binCount)
    }

    mutating func reset() {
        head = 0
        count = 0
        for bin in histogram.indices { histogram[bin] = 0 }
        estimate = nil
    }

    /// Records a packet that arrived at `arrival` (nanoseconds on any fixed base) with `transit` nanoseconds.
    mutating func record(arrival: Int64, transit: Int64) {
        while count > 0, ring[head].arrival < arrival - window || count == Self.ringSize {
            histogram[ring[head].bin] -= 1
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
        let sampleBin = Int(min((transit - baseline) / Self.binWidth, Int64(Self.binCount - 1)))
        ring[(head + count) % Self.ringSize] = Sample(arrival: arrival, transit: transit, bin: sampleBin)
        histogram[sampleBin] += 1
        count += 1
        guard count >= Self.minimumSamples else {
            estimate = nil
            return
        }
        // The sample of this rank (0-based, ascending) is the percentile.
        let rank = Int((Double(count - 1) * percentile).rounded(.up))
        var seen = histogram[0]
        var bin = 0
        while seen <= rank, bin < Self.binCount - 1 {
            bin += 1
            seen += histogram[bin]
        }
        estimate = Int64(bin) * Self.binWidth
    }
}
