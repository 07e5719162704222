/// Why noise suppression cannot run.
public enum NoiseSuppressorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No RNNoise library was found: the paths tried, in order (the last loader error for each).
    case libraryNotFound(tried: [String])
    /// The library loaded but lacks a function this code calls (not an RNNoise build).
    case missingSymbol(String, library: String)
    /// The library's frame is not the 480 samples (10 ms at 48 kHz) this code feeds it.
    case unexpectedFrameSize(Int)
    /// `rnnoise_create` returned no state (out of memory).
    case stateCreationFailed
    /// The weights file next to the library is not a model this library can run (wrong format or layer sizes).
    case weightsRejected(String)
    /// RNNoise runs on 48 kHz audio; this format is something else.
    case unsupportedFormat(AudioFormat)

    public var description: String {
        switch self {
        case .libraryNotFound(let tried):
            "no RNNoise library found (tried: \(tried.joined(separator: "; "))); `make rnnoise` installs it, or set "
                + "\(RNNoiseLibrary.pathVariable)"
        case .missingSymbol(let symbol, let library): "\(library) has no \(symbol): not an RNNoise library"
        case .unexpectedFrameSize(let size): "RNNoise frames of \(size) samples, expected \(RNNoiseLibrary.frameSize)"
        case .stateCreationFailed: "rnnoise_create returned no state"
        case .weightsRejected(let path): "\(path) is not a model this RNNoise library can run; remove it or run `make rnnoise`"
        case .unsupportedFormat(let format): "RNNoise needs 48 kHz audio, not \(format)"
        }
    }
}
