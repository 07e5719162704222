import CCarillonOpus

/// Why an Opus encoder or decoder refused a call.
public enum OpusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libopus returned an error: its (negative) code and `opus_strerror` text, e.g. -4 "corrupted stream".
    case library(code: Int32, message: String)
    /// Opus runs at 8, 12, 16, 24 or 48 kHz with one or two channels.
    case unsupportedFormat(AudioFormat)
    /// The frame's format is not the one the encoder was made for.
    case formatMismatch(expected: AudioFormat, got: AudioFormat)
    /// Opus encodes 2.5, 5, 10, 20, 40 or 60 ms per call; this many samples per channel is none of them.
    case unsupportedFrameLength(samplesPerChannel: Int, format: AudioFormat)
    /// A duration asked of the decoder is not a positive multiple of 2.5 ms up to 120 ms.
    case unsupportedDuration(milliseconds: Int)
    /// A setting outside its range, for example a bitrate below 500 bit/s or a loss percentage above 100.
    case badArgument(String)
    /// The packet has no bytes; use ``OpusDecoder/concealLoss(frameMilliseconds:)`` for a lost packet.
    case emptyPacket

    /// The error for a negative libopus return code.
    init(code: Int32) {
        let message = opus_strerror(code).map { String(cString: $0) } ?? "unknown error"
        self = .library(code: code, message: message)
    }

    /// Whether libopus judged the packet itself broken (as opposed to a bad call).
    public var isInvalidPacket: Bool {
        if case .library(let code, _) = self { return code == OPUS_INVALID_PACKET }
        return false
    }

    public var description: String {
        switch self {
        case .library(let code, let message): "libopus error \(code): \(message)"
        case .unsupportedFormat(let format): "Opus does not support \(format)"
        case .formatMismatch(let expected, let got): "expected \(expected) audio, got \(got)"
        case .unsupportedFrameLength(let samples, let format):
            "\(samples) samples per channel at \(format.sampleRate) Hz is not an Opus frame length (2.5-60 ms)"
        case .unsupportedDuration(let milliseconds): "\(milliseconds) ms is not a multiple of 2.5 ms up to 120 ms"
        case .badArgument(let reason): "bad argument: \(reason)"
        case .emptyPacket: "empty Opus packet"
        }
    }

    /// Throws the library error when `status` is negative, else returns it.
    @discardableResult
    static func check(_ status: Int32) throws(OpusError) -> Int32 {
        guard status >= 0 else { throw OpusError(code: status) }
        return status
    }

    /// Throws `.unsupportedFormat` unless Opus can run at `format`.
    static func validate(_ format: AudioFormat) throws(OpusError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(format.sampleRate), (1...2).contains(format.channels) else {
            throw .unsupportedFormat(format)
        }
    }
}
