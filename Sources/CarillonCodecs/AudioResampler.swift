#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts a stream of frames to another sample rate and channel count (8, 16, 24, 32, 44.1, 48 kHz and other
/// rates with a small ratio; mono and stereo).
///
/// A polyphase FIR: a Kaiser-windowed sinc low-pass (cut off at 45 % of the lower rate, about 80 dB stop band),
/// sampled at every fractional position the rate ratio needs. It keeps the last input samples between calls, so
/// consecutive frames join as if they were one signal, and it counts samples exactly, so 20 ms in gives 20 ms out
/// whenever 20 ms is a whole number of samples at both rates (no drift). The price is a fixed delay, ``latencySeconds``.
///
/// Sans-IO and a value type: one owner feeds it the frames of one stream in order.
public struct AudioResampler: Sendable {
    /// The format ``process(_:)`` accepts.
    public let inputFormat: AudioFormat
    /// The format ``process(_:)`` returns.
    public let outputFormat: AudioFormat

    // Output rate / input rate = up / down, reduced.
    private let up: Int
    private let down: Int
    // Filter taps per output sample (even), and the table: `up` phases of `taps` coefficients each.
    private let taps: Int
    private let coefficients: [Float]
    // Channels actually filtered: stereo is downmixed before filtering and mono upmixed after, to halve the work.
    private let workChannels: Int
    // The last taps - 1 input samples of each channel (planar), zeros at the start.
    private var history: [Float]
    // Input samples consumed and output samples produced, per channel; reduced by whole periods to stay small.
    private var consumed = 0
    private var produced = 0

    /// Half the filter length at equal rates, in input samples; longer when decimating, so the cut-off stays sharp.
    private static let halfTaps = 24
    private static let kaiserBeta = 8.6
    private static let cutoffShare = 0.9

    /// Creates a resampler, or throws `.unsupportedConversion` for a rate outside 1...384 000 Hz, channels other than
    /// 1 or 2, or a rate ratio whose reduced terms exceed 1000 (44.1 to 48 kHz is 147:160).
    public init(from input: AudioFormat, to output: AudioFormat) throws(AudioFrameError) {
        let rates = 1...384_000
        guard rates.contains(input.sampleRate), rates.contains(output.sampleRate),
              (1...2).contains(input.channels), (1...2).contains(output.channels)
        else { throw .unsupportedConversion(from: input, to: output) }
        let divisor = Self.greatestCommonDivisor(input.sampleRate, output.sampleRate)
        up = output.sampleRate / divisor
        down = input.sampleRate / divisor
        guard up <= 1000, down <= 1000 else { throw .unsupportedConversion(from: input, to: output) }
        inputFormat = input
        outputFormat = output
        workChannels = min(input.channels, output.channels)
        if up == down {
            taps = 0
            coefficients = []
        } else {
            let stretch = max(1, Double(down) / Double(up))
            taps = 2 * Int((Double(Self.halfTaps) * stretch).rounded(.up))
            coefficients = Self.makeTable(up: up, down: down, taps: taps)
        }
        history = [Float](repeating: 0, count: max(0, taps - 1) * workChannels)
    }

    /// How long the filter delays the signal (zero at equal rates): a tone comes out this much later than it went in.
    public var latencySeconds: Double { Double(taps / 2) / Double(inputFormat.sampleRate) }

    /// Converts the next frame of the stream. `frame.format` must equal ``inputFormat`` (a trap otherwise: a stream's
    /// format is fixed by whoever built the resampler for it).
    ///
    /// The output holds every output sample whose input has arrived; over a stream its length matches the input's
    /// duration exactly, frame by frame when a frame is a whole number of samples at both rates.
    public mutating func process(_ frame: AudioFrame) -> AudioFrame {
        precondition(frame.format == inputFormat, "resampler for \(inputFormat) fed \(frame.format) audio")
        var input = frame
        if input.format.channels == 2 && outputFormat.channels == 1 { input = input.monoDownmix() }
        var result = up == down
            ? AudioFrame(format: AudioFormat(sampleRate: outputFormat.sampleRate, channels: workChannels), samples: input.samples)
            : filter(input)
        if result.format.channels == 1 && outputFormat.channels == 2 { result = result.stereoUpmix() }
        return result
    }

    /// Forgets the stream so far, as for a new one.
    public mutating func reset() {
        for index in history.indices { history[index] = 0 }
        consumed = 0
        produced = 0
    }

    private mutating func filter(_ input: AudioFrame) -> AudioFrame {
        let channels = workChannels
        let count = input.frameCount
        let keep = taps - 1
        let available = consumed + count
        // Output n needs input floor(n * down / up); all n below available * up / down are ready.
        let end = (available * up + down - 1) / down
        let outputCount = end - produced
        var output = [Int16](repeating: 0, count: outputCount * channels)
        var work = [Float](repeating: 0, count: keep + count)
        for channel in 0..<channels {
            for index in 0..<keep { work[index] = history[channel * keep + index] }
            input.samples.withUnsafeBufferPointer { samples in
                for index in 0..<count { work[keep + index] = Float(samples[index * channels + channel]) }
            }
            work.withUnsafeBufferPointer { work in
                coefficients.withUnsafeBufferPointer { table in
                    for n in produced..<end {
                        let position = n * down
                        let newest = position / up
                        let phase = position - newest * up
                        // The window spans inputs newest - taps + 1 ... newest, i.e. work[newest - consumed ...].
                        let start = newest - consumed
                        var sum: Float = 0
                        let row = phase * taps
                        for k in 0..<taps { sum += work[start + k] * table[row + k] }
                        output[(n - produced) * channels + channel] = AudioFrame.clip(sum)
                    }
                }
            }
            for index in 0..<keep { history[channel * keep + index] = work[count + index] }
        }
        consumed = available
        produced = end
        // Every `up` outputs use exactly `down` inputs: drop whole periods so the counters never grow.
        let periods = produced / up
        consumed -= periods * down
        produced -= periods * up
        return AudioFrame(format: AudioFormat(sampleRate: outputFormat.sampleRate, channels: channels), samples: output)
    }

    /// Phase p, tap k weighs the input at distance p/up + taps/2 - 1 - k (in input samples) before the output's
    /// instant; each phase is normalised to unit gain at DC so a constant stays constant.
    private static func makeTable(up: Int, down: Int, taps: Int) -> [Float] {
        let cutoff = 0.5 * min(1, Double(up) / Double(down)) * cutoffShare
        let half = Double(taps / 2)
        let normaliser = besselI0(kaiserBeta)
        var table = [Float](repeating: 0, count: up * taps)
        var row = [Double](repeating: 0, count: taps)
        for phase in 0..<up {
            var total = 0.0
            for k in 0..<taps {
                let distance = Double(phase) / Double(up) + half - 1 - Double(k)
                let x = 2 * cutoff * distance
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                let ratio = distance / half
                let window = ratio.magnitude >= 1 ? 0 : besselI0(kaiserBeta * (1 - ratio * ratio).squareRoot()) / normaliser
                row[k] = sinc * window
                total += row[k]
            }
            for k in 0..<taps { table[phase * taps + k] = Float(row[k] / total) }
        }
        return table
    }

    // The modified Bessel function of the first kind, order zero, by its power series.
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        let quarterSquare = x * x / 4
        while term > sum * 1e-12 {
            term *= quarterSquare / (k * k)
            sum += term
            k += 1
        }
        return sum
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
