#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A sine tone source for tests, bots and `carillon join --tone`: successive frames continue the phase, so they join
/// without clicks. The same sample goes to every channel.
public struct ToneGenerator: Sendable {
    /// Tone frequency in Hz.
    public var frequency: Double
    /// Peak amplitude as a fraction of full scale (1 reaches Int16.max; 0.1 is -20 dBFS).
    public var amplitude: Double
    /// Format of the frames produced.
    public let format: AudioFormat
    // Position within the current cycle, 0..<1, kept small so long runs do not lose precision.
    private var phase: Double = 0

    /// Creates a generator starting at phase zero.
    public init(frequency: Double, amplitude: Double = 0.5, format: AudioFormat = .mono48k) {
        self.frequency = frequency
        self.amplitude = amplitude
        self.format = format
    }

    /// The next `milliseconds` of the tone.
    public mutating func next(milliseconds: Int = 20) -> AudioFrame {
        next(sampleFrames: format.samplesPerFrame(milliseconds: milliseconds))
    }

    /// The next `sampleFrames` samples per channel of the tone.
    public mutating func next(sampleFrames: Int) -> AudioFrame {
        let channels = format.channels
        let step = frequency / Double(format.sampleRate)
        let peak = amplitude * Double(Int16.max)
        var samples = [Int16](repeating: 0, count: sampleFrames * channels)
        for index in 0..<sampleFrames {
            let value = AudioFrame.clip(Float(peak * sin(2 * Double.pi * phase)))
            for channel in 0..<channels { samples[index * channels + channel] = value }
            phase += step
            phase -= phase.rounded(.down)
        }
        return AudioFrame(format: format, samples: samples)
    }
}
