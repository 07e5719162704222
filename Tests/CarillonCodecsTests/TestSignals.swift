@testable import CarillonCodecs

/// A seeded generator (SplitMix64) so mutation tests are repeatable.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Shared signal helpers for the codec tests.
enum TestSignals {
    /// `count` frames of `milliseconds` of a tone.
    static func toneFrames(_ frequency: Double, amplitude: Double = 0.5, format: AudioFormat, count: Int, milliseconds: Int = 20) -> [AudioFrame] {
        var generator = ToneGenerator(frequency: frequency, amplitude: amplitude, format: format)
        return (0..<count).map { _ in generator.next(milliseconds: milliseconds) }
    }

    /// The frames' samples end to end.
    static func joined(_ frames: [AudioFrame]) -> [Int16] { frames.flatMap(\.samples) }

    /// One channel of interleaved samples.
    static func channel(_ samples: [Int16], _ index: Int, of channels: Int) -> [Int16] {
        stride(from: index, to: samples.count, by: channels).map { samples[$0] }
    }
}
