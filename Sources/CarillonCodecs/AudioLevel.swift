#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loudness of PCM frames in dBov, as RTP's client-to-mixer audio level extension (RFC 6464) carries it.
public enum AudioLevel {
    /// The quietest level: RFC 6464 encodes anything at or below -127 dBov, digital silence included, as 127.
    public static let silenceDBov: Double = -127

    /// The default voice threshold for ``isVoiceActive(_:thresholdDBov:)``: -50 dBov.
    ///
    /// Normal speech into a headset sits around -20 to -35 dBov and a quiet room's noise floor around -60 to -70 dBov;
    /// -50 keeps soft speech and rejects the floor. Noise reduction, when on, runs before this check.
    public static let defaultVoiceThresholdDBov: Double = -50

    /// Root-mean-square level over all samples relative to full scale: 0 dBov is a full-scale square wave
    /// (every sample at ±32767), a full-scale sine is -3 dBov, silence is ``silenceDBov``.
    public static func rmsDBov(_ frame: AudioFrame) -> Double {
        rmsDBov(frame.samples)
    }

    /// ``rmsDBov(_:)-(AudioFrame)`` over raw samples (all channels together).
    public static func rmsDBov(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return silenceDBov }
        // Over the buffer, not the array's iterator: per 20 ms frame on the send path, and the iterator is a generic
        // call per sample in a debug build (the virtual-time meetings run debug code).
        let energy = samples.withUnsafeBufferPointer { buffer in
            var energy = 0.0
            for sample in buffer { energy += Double(sample) * Double(sample) }
            return energy
        }
        let meanSquare = energy / Double(samples.count) / (Double(Int16.max) * Double(Int16.max))
        guard meanSquare > 0 else { return silenceDBov }
        return max(silenceDBov, min(0, 10 * log10(meanSquare)))
    }

    /// The RFC 6464 level byte value: -dBov rounded, 0 (loudest) to 127 (silence). The voice-activity flag is not part
    /// of it.
    public static func rfc6464Level(_ frame: AudioFrame) -> UInt8 {
        rfc6464Level(dBov: rmsDBov(frame))
    }

    /// The RFC 6464 level for a dBov value (clamped to 0...127).
    public static func rfc6464Level(dBov: Double) -> UInt8 {
        guard !dBov.isNaN else { return 127 }
        return UInt8(min(127, max(0, (-dBov).rounded())))
    }

    /// The dBov value an RFC 6464 level stands for.
    public static func dBov(rfc6464Level level: UInt8) -> Double { -Double(min(level, 127)) }

    /// Whether the frame is loud enough to count as speech: its RMS level is above `thresholdDBov`
    /// (``defaultVoiceThresholdDBov`` unless given). A level heuristic, not a speech detector: loud noise passes.
    public static func isVoiceActive(_ frame: AudioFrame, thresholdDBov: Double = defaultVoiceThresholdDBov) -> Bool {
        rmsDBov(frame) > thresholdDBov
    }
}
