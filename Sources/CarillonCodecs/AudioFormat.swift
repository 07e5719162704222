/// The shape of interleaved 16-bit PCM: how many samples per second each channel has and how many channels there are.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Samples per second in each channel, for example 48 000.
    public var sampleRate: Int
    /// Interleaved channels: 1 for mono, 2 for stereo (left, right).
    public var channels: Int

    /// Creates a format; neither value is checked here, the codecs and the resampler say which they accept.
    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// 16 kHz mono, wideband speech.
    public static let mono16k = AudioFormat(sampleRate: 16_000, channels: 1)
    /// 48 kHz mono, what WebRTC's Opus runs at for a microphone.
    public static let mono48k = AudioFormat(sampleRate: 48_000, channels: 1)
    /// 48 kHz stereo, Opus's native format.
    public static let stereo48k = AudioFormat(sampleRate: 48_000, channels: 2)

    /// Samples in each channel over `milliseconds` (rounded down when the rate is not a whole number of kHz).
    public func samplesPerFrame(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    /// Interleaved samples (all channels) over `milliseconds`.
    public func interleavedSampleCount(milliseconds: Int) -> Int { samplesPerFrame(milliseconds: milliseconds) * channels }

    public var description: String { "\(sampleRate) Hz \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch")" }
}
