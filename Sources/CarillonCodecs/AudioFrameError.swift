/// Why frames could not be combined or converted.
public enum AudioFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There was nothing to mix, so there is no format for the result.
    case noFrames
    /// Frames of different sample rates or channel counts; resample or remix them first.
    case formatMismatch(expected: AudioFormat, got: AudioFormat)
    /// ``AudioResampler`` does not convert between these formats (rates must be positive and at most 384 kHz with a
    /// ratio whose reduced terms are at most 1000, channels 1 or 2).
    case unsupportedConversion(from: AudioFormat, to: AudioFormat)

    public var description: String {
        switch self {
        case .noFrames: "no frames to mix"
        case .formatMismatch(let expected, let got): "cannot mix \(got) audio into \(expected) audio"
        case .unsupportedConversion(let from, let to): "cannot resample \(from) audio to \(to)"
        }
    }
}
