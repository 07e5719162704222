import CarillonCodecs
import NIOCore

/// What `carillon peer --video` reads from the pictures the SDK's receive stream decoded: each is read as a
/// ``VideoTestPattern`` (its counter, when the sender draws one, and the colour of its top-right area), which is
/// what proves the content came through, and the decode times give the frame rate.
///
/// Costs: one ``VideoPatternReading`` per decoded picture. Threading: not thread-safe; the peer's event loop owns it.
struct PeerVideoReadings {
    private var firstDecode: NIODeadline?
    private var lastDecode: NIODeadline?
    private var decoded = 0
    /// Decoded pictures whose pattern counter read clearly (24 cells and the CRC).
    private var countersRead = 0
    private var firstCounter: Int?
    private var lastCounter: Int?
    /// Counters read that were older than the one before.
    private var counterRegressions = 0
    /// Counters read that equalled the one before (the sender repeated a picture).
    private var counterRepeats = 0
    /// Decoded pictures per palette colour nearest to their colour area ("none" when nothing is near).
    private var colors: [String: Int] = [:]
    private var lastReading: VideoPatternReading?

    /// Reads one decoded picture, shown at `now`.
    mutating func read(_ image: I420Image, now: NIODeadline) {
        decoded += 1
        firstDecode = firstDecode ?? now
        lastDecode = now
        let reading = VideoPatternReading(image)
        lastReading = reading
        colors[reading.nearestColor()?.name ?? "none", default: 0] += 1
        guard let counter = reading.counter else { return }
        countersRead += 1
        if let last = lastCounter {
            // Newer in 16-bit serial arithmetic; an equal counter is a repeated picture, not a regression.
            let step = Int16(truncatingIfNeeded: counter &- last)
            if step < 0 { counterRegressions += 1 }
            if step == 0 { counterRepeats += 1 }
        }
        firstCounter = firstCounter ?? counter
        lastCounter = counter
    }

    /// The figures for the result line.
    var figures: [String: any Sendable] {
        var figures: [String: any Sendable] = [
            "countersRead": countersRead, "counterRegressions": counterRegressions, "counterRepeats": counterRepeats,
            "colors": colors,
        ]
        if let firstCounter, let lastCounter {
            figures["firstCounter"] = firstCounter
            figures["lastCounter"] = lastCounter
        }
        if let firstDecode, let lastDecode, lastDecode > firstDecode {
            let seconds = Double((lastDecode - firstDecode).nanoseconds) / 1e9
            figures["fps"] = (Double(decoded - 1) / seconds * 10).rounded() / 10
        }
        if let lastReading {
            figures["lastColorYUV"] = [lastReading.meanY, lastReading.meanU, lastReading.meanV].map { $0.rounded() }
        }
        return figures
    }
}
