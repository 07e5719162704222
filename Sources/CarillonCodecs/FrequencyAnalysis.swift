#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Single-frequency measurements (Goertzel) for tests that check a recording holds some tones and not others.
///
/// Samples are one channel; downmix interleaved stereo first (the ``AudioFrame`` overloads do). A Hann window is
/// applied, so a strong tone barely leaks into candidates a few bins away.
public enum FrequencyAnalysis {
    /// Power at `frequency` as the squared peak amplitude relative to full scale: a sine of amplitude 0.5 gives about
    /// 0.25 (-6 dB), an absent tone near 0. Empty input gives 0.
    public static func goertzelPower(samples: some Collection<Int16>, sampleRate: Int, frequency: Double) -> Double {
        // One concrete loop over contiguous memory: a generic one costs a metadata lookup per sample in a debug
        // build, which made the virtual-time meetings' analysis slower than the meetings themselves.
        samples.withContiguousStorageIfAvailable { goertzelPower($0, sampleRate: sampleRate, frequency: frequency) }
            ?? Array(samples).withUnsafeBufferPointer { goertzelPower($0, sampleRate: sampleRate, frequency: frequency) }
    }

    private static func goertzelPower(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, frequency: Double) -> Double {
        let count = samples.count
        guard count > 0, sampleRate > 0 else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        let windowStep = count > 1 ? 2 * Double.pi / Double(count - 1) : 0
        var previous = 0.0, beforePrevious = 0.0, windowSum = 0.0
        var index = 0
        while index < count {
            let window = count > 1 ? 0.5 - 0.5 * cos(windowStep * Double(index)) : 1
            windowSum += window
            let current = Double(samples[index]) * window + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
            index += 1
        }
        let magnitudeSquared = max(0, previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious)
        // A sine of peak A gives |X| = A * windowSum / 2.
        let amplitude = 2 * magnitudeSquared.squareRoot() / windowSum / Double(Int16.max)
        return amplitude * amplitude
    }

    /// ``goertzelPower(samples:sampleRate:frequency:)`` of a frame, downmixed to mono.
    public static func goertzelPower(_ frame: AudioFrame, frequency: Double) -> Double {
        goertzelPower(samples: frame.monoDownmix().samples, sampleRate: frame.format.sampleRate, frequency: frequency)
    }

    /// The candidate with the most power; nil when there are no candidates or no samples.
    public static func dominantFrequency(samples: some Collection<Int16>, sampleRate: Int, candidates: [Double]) -> Double? {
        guard !samples.isEmpty else { return nil }
        return candidates.max {
            goertzelPower(samples: samples, sampleRate: sampleRate, frequency: $0)
                < goertzelPower(samples: samples, sampleRate: sampleRate, frequency: $1)
        }
    }

    /// ``dominantFrequency(samples:sampleRate:candidates:)`` of a frame, downmixed to mono.
    public static func dominantFrequency(_ frame: AudioFrame, candidates: [Double]) -> Double? {
        dominantFrequency(samples: frame.monoDownmix().samples, sampleRate: frame.format.sampleRate, candidates: candidates)
    }

    /// Power at `frequency` over power at `reference`, in dB (positive when `frequency` is stronger).
    public static func relativePowerDB(samples: some Collection<Int16>, sampleRate: Int, frequency: Double, reference: Double) -> Double {
        decibels(goertzelPower(samples: samples, sampleRate: sampleRate, frequency: frequency))
            - decibels(goertzelPower(samples: samples, sampleRate: sampleRate, frequency: reference))
    }

    /// How far, in dB, `frequency` stands above the strongest of `others`: the check "this tone, and none of those".
    public static func dominanceDB(samples: some Collection<Int16>, sampleRate: Int, frequency: Double, over others: [Double]) -> Double {
        let strongest = others.map { goertzelPower(samples: samples, sampleRate: sampleRate, frequency: $0) }.max() ?? 0
        return decibels(goertzelPower(samples: samples, sampleRate: sampleRate, frequency: frequency)) - decibels(strongest)
    }

    /// Power at `frequency` relative to the whole signal's mean-square power, in dB: near 0 for a clean tone, very
    /// negative when the tone is absent or buried in other sound. (A sine's mean square is half its squared peak,
    /// which is accounted for.)
    public static func powerShareDB(samples: some Collection<Int16>, sampleRate: Int, frequency: Double) -> Double {
        guard !samples.isEmpty else { return decibels(0) }
        let energy = samples.withContiguousStorageIfAvailable(sumOfSquares) ?? Array(samples).withUnsafeBufferPointer(sumOfSquares)
        let meanSquare = energy / Double(samples.count) / (Double(Int16.max) * Double(Int16.max))
        return decibels(goertzelPower(samples: samples, sampleRate: sampleRate, frequency: frequency) / 2) - decibels(meanSquare)
    }

    private static func sumOfSquares(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        var energy = 0.0
        for sample in samples { energy += Double(sample) * Double(sample) }
        return energy
    }

    /// 10·log10 of a power ratio, floored at -200 dB so silence stays finite.
    public static func decibels(_ power: Double) -> Double {
        power > 1e-20 ? 10 * log10(power) : -200
    }
}
