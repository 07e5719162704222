/// Turns inter-group delay variations into a ``BandwidthUsage`` verdict, GCC style: the variations are accumulated
/// into a delay curve, smoothed, and the slope of a least-squares line through the last `windowSize` points is
/// compared, scaled, against a threshold that itself follows the signal (slowly up, faster down) so that competing
/// traffic does not starve us.
struct DelayTrendDetector: Sendable {
    let windowSize: Int
    let smoothing: Double
    let gain: Double
    /// Threshold adaptation rates per millisecond, when the trend is above or below the threshold.
    let upRate = 0.0087
    let downRate = 0.039
    /// How long the trend must stay above the threshold before overuse is declared, in milliseconds.
    let overuseTime = 10.0

    private var firstArrival: Int64?
    private var accumulated = 0.0
    private var smoothed = 0.0
    private var points: [(x: Double, y: Double)] = []
    private var deltas = 0
    private(set) var threshold = 12.5
    private(set) var modifiedTrend = 0.0
    private var previousTrend = 0.0
    private var timeAboveThreshold: Double?
    private var timesAboveThreshold = 0
    private var lastThresholdUpdate: Double?
    private(set) var usage = BandwidthUsage.normal

    init(windowSize: Int = 20, smoothing: Double = 0.9, gain: Double = 4) {
        self.windowSize = windowSize
        self.smoothing = smoothing
        self.gain = gain
        points.reserveCapacity(windowSize + 1)
    }

    /// Feeds one group delta; returns the updated verdict.
    mutating func update(_ delta: SendBurstGrouper.Delta) -> BandwidthUsage {
        let firstArrival = self.firstArrival ?? delta.arrival
        self.firstArrival = firstArrival
        let now = Double(delta.arrival - firstArrival) / 1e6
        deltas = min(deltas + 1, 1000)
        accumulated += delta.arrivalDelta - delta.sendDelta
        smoothed = smoothing * smoothed + (1 - smoothing) * accumulated
        points.append((now, smoothed))
        if points.count > windowSize { points.removeFirst() }
        if points.count == windowSize, let slope = Self.slope(points) {
            modifiedTrend = Double(min(deltas, 60)) * slope * gain
        }
        detect(sendDelta: delta.sendDelta, now: now)
        return usage
    }

    private mutating func detect(sendDelta: Double, now: Double) {
        guard deltas >= 2 else { return }
        if modifiedTrend > threshold {
            let above = (timeAboveThreshold ?? -sendDelta / 2) + sendDelta
            timeAboveThreshold = above
            timesAboveThreshold += 1
            if above > overuseTime, timesAboveThreshold > 1, modifiedTrend >= previousTrend {
                timeAboveThreshold = 0
                timesAboveThreshold = 0
                usage = .overusing
            }
        } else {
            timeAboveThreshold = nil
            timesAboveThreshold = 0
            usage = modifiedTrend < -threshold ? .underusing : .normal
        }
        previousTrend = modifiedTrend
        adaptThreshold(now: now)
    }

    private mutating func adaptThreshold(now: Double) {
        let last = lastThresholdUpdate ?? now
        lastThresholdUpdate = now
        let magnitude = abs(modifiedTrend)
        // A spike far beyond the threshold says nothing about the usual noise level.
        guard magnitude <= threshold + 15 else { return }
        let rate = magnitude < threshold ? downRate : upRate
        threshold += rate * (magnitude - threshold) * min(now - last, 100)
        threshold = min(max(threshold, 6), 600)
    }

    private static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / count
        let meanY = points.reduce(0) { $0 + $1.y } / count
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}
