import CarillonCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Short-Time Objective Intelligibility (STOI, Taal, Hendriks, Heusdens and Jensen, IEEE TASLP 2011): how well a
/// processed signal keeps the intelligibility of its clean reference, 0 to 1 (higher is better), for judging what
/// noise suppression does to speech.
///
/// The published algorithm: both signals at 10 kHz; frames of 256 samples (Hann window, half overlap) more than 40 dB
/// below the clean signal's loudest frame removed from both; a 512-point spectrum per frame grouped into 15 one-third
/// octave bands from 150 Hz; for every 30-frame (384 ms) segment, each band of the processed signal scaled to the
/// clean band's energy, clipped at 15 dB above it, and correlated with it; the mean correlation over bands and segments.
///
/// Cost: a few milliseconds per second of audio. Threading: pure functions.
public enum SpeechIntelligibility {
    /// The rate STOI works at.
    public static let sampleRate = 10_000
    private static let frameLength = 256
    private static let fftSize = 512
    private static let bandCount = 15
    private static let lowestBandCentre = 150.0
    private static let segmentFrames = 30
    private static let clipDB = -15.0
    private static let dynamicRangeDB = 40.0
    private static let epsilon = Double.ulpOfOne

    /// STOI of `processed` against `clean`, both mono at `sampleRate` (any rate ``AudioResampler`` takes) and aligned;
    /// the longer one is cut to the shorter. Returns nil when, after silent frames are removed, the clean signal has
    /// fewer than 30 frames (about 0.4 s): too short to measure.
    public static func shortTimeObjectiveIntelligibility(clean: [Int16], processed: [Int16], sampleRate rate: Int) -> Double? {
        let count = min(clean.count, processed.count)
        guard let x = resampled(Array(clean[..<count]), from: rate),
              let y = resampled(Array(processed[..<count]), from: rate)
        else { return nil }
        let (xSpeech, ySpeech) = removingSilentFrames(x, y)
        let xBands = thirdOctaveBands(xSpeech), yBands = thirdOctaveBands(ySpeech)
        let frames = xBands.first?.count ?? 0
        guard frames >= segmentFrames else { return nil }
        let clip = pow(10, -clipDB / 20)
        var total = 0.0
        var segments = 0
        for end in segmentFrames...frames {
            for band in 0..<bandCount {
                let xs = Array(xBands[band][(end - segmentFrames)..<end])
                let ys = Array(yBands[band][(end - segmentFrames)..<end])
                let scale = norm(xs) / (norm(ys) + epsilon)
                var primes = zip(ys, xs).map { min($0 * scale, $1 * (1 + clip)) }
                var centred = xs
                subtractMean(&primes)
                subtractMean(&centred)
                let primeNorm = norm(primes) + epsilon, cleanNorm = norm(centred) + epsilon
                total += zip(primes, centred).reduce(0) { $0 + ($1.0 / primeNorm) * ($1.1 / cleanNorm) }
            }
            segments += 1
        }
        return total / Double(segments * bandCount)
    }

    private static func resampled(_ samples: [Int16], from rate: Int) -> [Double]? {
        if rate == sampleRate { return samples.map(Double.init) }
        guard var resampler = try? AudioResampler(from: AudioFormat(sampleRate: rate, channels: 1),
                                                  to: AudioFormat(sampleRate: sampleRate, channels: 1))
        else { return nil }
        let frame = resampler.process(AudioFrame(format: resampler.inputFormat, samples: samples))
        // The resampler delays its output; drop the delay so both signals start where the input did.
        let delay = min(frame.samples.count, Int((resampler.latencySeconds * Double(sampleRate)).rounded()))
        return frame.samples[delay...].map(Double.init)
    }

    /// numpy's `hanning(n + 2)[1:-1]`: a Hann window without its zero end points.
    private static let window: [Double] = (1...frameLength).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frameLength + 1)) }

    private static func frameStarts(_ count: Int) -> StrideTo<Int> {
        stride(from: 0, to: count - frameLength, by: frameLength / 2)
    }

    private static func windowed(_ signal: [Double], at start: Int) -> [Double] {
        (0..<frameLength).map { signal[start + $0] * window[$0] }
    }

    /// Drops the frames more than 40 dB below the clean signal's loudest frame from both signals and overlap-adds
    /// the windowed frames that remain.
    private static func removingSilentFrames(_ x: [Double], _ y: [Double]) -> ([Double], [Double]) {
        let starts = Array(frameStarts(x.count))
        let xFrames = starts.map { windowed(x, at: $0) }
        let energies = xFrames.map { 20 * log10(norm($0) + epsilon) }
        guard let loudest = energies.max() else { return ([], []) }
        let kept = starts.indices.filter { loudest - dynamicRangeDB - energies[$0] < 0 }
        let length = kept.isEmpty ? 0 : (kept.count - 1) * frameLength / 2 + frameLength
        var xOut = [Double](repeating: 0, count: length), yOut = [Double](repeating: 0, count: length)
        for (position, index) in kept.enumerated() {
            let yFrame = windowed(y, at: starts[index])
            for offset in 0..<frameLength {
                xOut[position * frameLength / 2 + offset] += xFrames[index][offset]
                yOut[position * frameLength / 2 + offset] += yFrame[offset]
            }
        }
        return (xOut, yOut)
    }

    /// The band edges in FFT bins, as `thirdoct` in the reference implementation places them (nearest bins).
    private static let bandBins: [Range<Int>] = {
        let binWidth = Double(sampleRate) / Double(fftSize)
        func nearestBin(_ frequency: Double) -> Int { min(fftSize / 2, Int((frequency / binWidth).rounded())) }
        return (0..<bandCount).map { band in
            let k = Double(band)
            return nearestBin(lowestBandCentre * pow(2, (2 * k - 1) / 6))..<nearestBin(lowestBandCentre * pow(2, (2 * k + 1) / 6))
        }
    }()

    /// The one-third octave band magnitudes per frame: `[band][frame]`.
    private static func thirdOctaveBands(_ signal: [Double]) -> [[Double]] {
        let transform = FourierTransform(size: fftSize)
        var bands = [[Double]](repeating: [], count: bandCount)
        for start in frameStarts(signal.count) {
            let power = transform.powerSpectrum(windowed(signal, at: start))
            for band in 0..<bandCount { bands[band].append(power[bandBins[band]].reduce(0, +).squareRoot()) }
        }
        return bands
    }

    private static func norm(_ values: [Double]) -> Double { values.reduce(0) { $0 + $1 * $1 }.squareRoot() }

    private static func subtractMean(_ values: inout [Double]) {
        let mean = values.reduce(0, +) / Double(values.count)
        for index in values.indices { values[index] -= mean }
    }
}
