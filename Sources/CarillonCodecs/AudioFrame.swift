/// A block of interleaved 16-bit PCM with its format, usually 10 or 20 ms of audio.
///
/// A value type; share it freely between threads.
public struct AudioFrame: Hashable, Sendable {
    /// Sample rate and channel count of `samples`.
    public var format: AudioFormat
    /// Interleaved samples: for stereo left, right, left, right...
    public var samples: [Int16]

    /// Creates a frame. `samples.count` must be a multiple of `format.channels` (a trap otherwise: frames are built by
    /// our own code, whose arithmetic guarantees it).
    public init(format: AudioFormat, samples: [Int16]) {
        precondition(format.channels > 0 && samples.count % format.channels == 0,
                     "\(samples.count) samples do not fill whole \(format) sample frames")
        self.format = format
        self.samples = samples
    }

    /// A frame of digital silence lasting `milliseconds`.
    public static func silence(format: AudioFormat, milliseconds: Int) -> AudioFrame {
        AudioFrame(format: format, samples: [Int16](repeating: 0, count: format.interleavedSampleCount(milliseconds: milliseconds)))
    }

    /// Samples in each channel (one per instant).
    public var frameCount: Int { samples.count / format.channels }

    /// Whole milliseconds the frame lasts (rounded down).
    public var durationMilliseconds: Int { format.sampleRate > 0 ? frameCount * 1000 / format.sampleRate : 0 }

    /// Whether every sample is zero.
    public var isSilent: Bool { samples.allSatisfy { $0 == 0 } }

    /// Sums frames sample by sample, clipping at the Int16 range instead of wrapping.
    ///
    /// Frames of different lengths are allowed: the result is as long as the longest and shorter frames count as
    /// silence after their end (a late or short decoder output must not cut the others). Different formats are a
    /// typed error, as is an empty list (it has no format).
    public static func mix(_ frames: [AudioFrame]) throws(AudioFrameError) -> AudioFrame {
        guard let first = frames.first else { throw .noFrames }
        let length = frames.reduce(0) { max($0, $1.samples.count) }
        // Sum in Int32 and clip once, so the order of the inputs cannot change the result.
        var sum = [Int32](repeating: 0, count: length)
        for frame in frames {
            guard frame.format == first.format else { throw .formatMismatch(expected: first.format, got: frame.format) }
            sum.withUnsafeMutableBufferPointer { total in
                frame.samples.withUnsafeBufferPointer { input in
                    for index in input.indices { total[index] &+= Int32(input[index]) }
                }
            }
        }
        return AudioFrame(format: first.format, samples: sum.map(Self.clip))
    }

    /// This frame mixed with `other` (see ``mix(_:)`` for lengths and clipping).
    public func mixed(with other: AudioFrame) throws(AudioFrameError) -> AudioFrame {
        try Self.mix([self, other])
    }

    /// The frame with every sample multiplied by `gain` (1 keeps it, 0.5 is about -6 dB), rounded and clipped.
    public func scaled(by gain: Double) -> AudioFrame {
        if gain == 1 { return self }
        let factor = Float(gain)
        return AudioFrame(format: format, samples: samples.map { Self.clip(Float($0) * factor) })
    }

    /// A mono frame: the average of the channels (the average cannot clip, unlike the sum). Mono frames are returned
    /// unchanged.
    public func monoDownmix() -> AudioFrame {
        let channels = format.channels
        if channels == 1 { return self }
        var mono = [Int16](repeating: 0, count: frameCount)
        samples.withUnsafeBufferPointer { input in
            for index in mono.indices {
                var total = 0
                for channel in 0..<channels { total += Int(input[index * channels + channel]) }
                // Round half away from zero so a symmetric signal stays symmetric.
                mono[index] = Int16(total >= 0 ? (total + channels / 2) / channels : (total - channels / 2) / channels)
            }
        }
        return AudioFrame(format: AudioFormat(sampleRate: format.sampleRate, channels: 1), samples: mono)
    }

    /// A stereo frame with the mono signal on both sides. Stereo frames are returned unchanged; frames with more
    /// channels are downmixed to mono first.
    public func stereoUpmix() -> AudioFrame {
        if format.channels == 2 { return self }
        let mono = format.channels == 1 ? self : monoDownmix()
        let stereo = [Int16](unsafeUninitializedCapacity: mono.samples.count * 2) { output, initialized in
            mono.samples.withUnsafeBufferPointer { input in
                for index in 0..<input.count {
                    output[2 * index] = input[index]
                    output[2 * index + 1] = input[index]
                }
            }
            initialized = mono.samples.count * 2
        }
        return AudioFrame(format: AudioFormat(sampleRate: format.sampleRate, channels: 2), samples: stereo)
    }

    static func clip(_ value: Int32) -> Int16 {
        Int16(truncatingIfNeeded: min(max(value, Int32(Int16.min)), Int32(Int16.max)))
    }

    /// `value` rounded to the nearest PCM sample, saturating at the ends (NaN is silence).
    package static func clip(_ value: Float) -> Int16 {
        let rounded = value.rounded()
        if rounded >= Float(Int16.max) { return .max }
        if rounded <= Float(Int16.min) { return .min }
        // NaN fails both comparisons above; map it to silence instead of trapping in the conversion.
        return rounded.isNaN ? 0 : Int16(rounded)
    }
}
