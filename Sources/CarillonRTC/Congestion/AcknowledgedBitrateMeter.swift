import NIOCore

/// The rate at which acknowledged bytes reached the receiver, over a sliding window of arrival times.
struct AcknowledgedBitrateMeter: Sendable {
    let window: Int64
    private var samples = CircularBuffer<(arrival: Int64, bytes: Int)>(initialCapacity: 256)
    private var bytes = 0

    init(windowNanoseconds: Int64 = 500_000_000) {
        window = windowNanoseconds
    }

    mutating func add(arrival: Int64, bytes size: Int) {
        samples.append((arrival, size))
        bytes += size
        let newest = max(arrival, samples.last?.arrival ?? arrival)
        while let oldest = samples.first, oldest.arrival < newest - window {
            bytes -= oldest.bytes
            samples.removeFirst()
        }
    }

    /// Bits per second, once the window spans at least 100 ms.
    var bitrate: Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        let span = last.arrival - first.arrival
        guard span >= 100_000_000 else { return nil }
        // The first sample's bytes arrived at the window's start, so they do not count towards the rate.
        return Double(bytes - first.bytes) * 8 / (Double(span) / 1e9)
    }
}
