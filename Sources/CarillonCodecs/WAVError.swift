#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a WAV file could not be read or written.
public enum WAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed: what was being done, on which path, and errno.
    case io(operation: String, path: String, errno: Int32)
    /// The bytes do not start with a RIFF/WAVE header.
    case notWAV
    /// The file ends inside a header or the format chunk.
    case truncated(String)
    /// There is no `fmt ` chunk, or no `data` chunk.
    case missingChunk(String)
    /// The format chunk describes audio this reader does not convert: its format tag (1 PCM, 3 float, after
    /// resolving WAVE_FORMAT_EXTENSIBLE) and bits per sample.
    case unsupportedEncoding(formatTag: UInt16, bitsPerSample: Int)
    /// The format chunk is self-contradictory or out of range (no channels, zero sample rate, ...).
    case invalidFormat(String)
    /// A frame appended to a writer has another format than the file.
    case formatMismatch(expected: AudioFormat, got: AudioFormat)
    /// The data would pass the 4 GiB a RIFF size field can describe.
    case tooLarge
    /// The writer was already closed.
    case closed

    public var description: String {
        switch self {
        case .io(let operation, let path, let code):
            "\(operation) \(path) failed: \(strerror(code).map { String(cString: $0) } ?? "errno \(code)")"
        case .notWAV: "not a RIFF/WAVE file"
        case .truncated(let what): "WAV file truncated: \(what)"
        case .missingChunk(let name): "WAV file has no '\(name)' chunk"
        case .unsupportedEncoding(let tag, let bits): "unsupported WAV encoding: format tag \(tag), \(bits) bits per sample"
        case .invalidFormat(let reason): "invalid WAV format chunk: \(reason)"
        case .formatMismatch(let expected, let got): "WAV file is \(expected), frame is \(got)"
        case .tooLarge: "WAV data would exceed 4 GiB"
        case .closed: "WAV writer already closed"
        }
    }
}
