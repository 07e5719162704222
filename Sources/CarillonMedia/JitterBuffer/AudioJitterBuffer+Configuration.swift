import NIOCore

extension AudioJitterBuffer {
    /// Tuning of an ``AudioJitterBuffer``; the defaults suit Opus downlink audio in 20 ms packets.
    ///
    /// A plain value, safe to share.
    public struct Configuration: Sendable, Equatable {
        /// The smallest target delay.
        public var minimumDelay: TimeAmount
        /// The largest target delay; also how far ahead of playout a sequence gap may reach before playout skips it.
        public var maximumDelay: TimeAmount
        /// The target delay before enough arrivals have been seen to estimate jitter.
        public var initialTargetDelay: TimeAmount
        /// The frame duration assumed until timestamp steps reveal the real one.
        public var frameDuration: TimeAmount
        /// RTP clock rate (48 000 for Opus).
        public var clockRate: Int
        /// Most packets held, and the span of sequence numbers ahead of playout the buffer accepts.
        public var capacity: Int
        /// How far back in arrival time the jitter estimate looks.
        public var jitterWindow: TimeAmount
        /// Which percentile of relative transit delay, in (0, 1], the target covers.
        public var jitterPercentile: Double
        /// Shortest time between two delay adaptations (a dropped or inserted frame).
        public var adaptationInterval: TimeAmount
        /// Consecutive `.conceal`s before playout answers `.silence` instead.
        public var maximumConcealments: Int
        /// How long without any arrival, with the buffer empty, before playout waits to resynchronise on the next
        /// packet.
        public var resynchronizationGap: TimeAmount
        /// A change of transit delay (arrival time against RTP timestamp) larger than this on a new packet is a
        /// sender restart: the buffer resets.
        public var discontinuityThreshold: TimeAmount

        /// Creates a configuration.
        public init(
            minimumDelay: TimeAmount = .milliseconds(20),
            maximumDelay: TimeAmount = .milliseconds(400),
            initialTargetDelay: TimeAmount = .milliseconds(60),
            frameDuration: TimeAmount = .milliseconds(20),
            clockRate: Int = 48_000,
            capacity: Int = 500,
            jitterWindow: TimeAmount = .seconds(4),
            jitterPercentile: Double = 0.95,
            adaptationInterval: TimeAmount = .milliseconds(200),
            maximumConcealments: Int = 5,
            resynchronizationGap: TimeAmount = .milliseconds(300),
            discontinuityThreshold: TimeAmount = .seconds(1)
        ) {
            self.minimumDelay = minimumDelay
            self.maximumDelay = maximumDelay
            self.initialTargetDelay = initialTargetDelay
            self.frameDuration = frameDuration
            self.clockRate = clockRate
            self.capacity = capacity
            self.jitterWindow = jitterWindow
            self.jitterPercentile = jitterPercentile
            self.adaptationInterval = adaptationInterval
            self.maximumConcealments = maximumConcealments
            self.resynchronizationGap = resynchronizationGap
            self.discontinuityThreshold = discontinuityThreshold
        }

        /// The same configuration with out-of-range values brought into range, so a careless value degrades
        /// behaviour instead of trapping.
        var sanitized: Configuration {
            var result = self
            result.clockRate = max(1, clockRate)
            result.capacity = min(max(capacity, 16), 1 << 16)
            result.frameDuration = max(frameDuration, .microseconds(2500))
            result.minimumDelay = max(minimumDelay, .zero)
            result.maximumDelay = max(maximumDelay, result.minimumDelay)
            result.initialTargetDelay = min(max(initialTargetDelay, result.minimumDelay), result.maximumDelay)
            result.jitterWindow = max(jitterWindow, .milliseconds(100))
            result.jitterPercentile = jitterPercentile.isFinite ? min(max(jitterPercentile, 0.01), 1) : 0.95
            result.adaptationInterval = max(adaptationInterval, .zero)
            result.maximumConcealments = max(maximumConcealments, 0)
            result.resynchronizationGap = max(resynchronizationGap, result.frameDuration)
            result.discontinuityThreshold = max(discontinuityThreshold, .milliseconds(100))
            return result
        }
    }
}
