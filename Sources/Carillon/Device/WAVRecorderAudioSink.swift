import CarillonCodecs

/// A virtual speaker that records what the session plays into a WAV file in the session's format.
///
/// The file is a valid WAV of everything written so far at every moment (``WAVWriter`` keeps its header current), so
/// a killed bot still leaves a playable recording. A write failure (a full disk) is kept in ``failure`` and stops the
/// recording; the session goes on. Owned by the session's media loop (not thread-safe).
final class WAVRecorderAudioSink: AudioOutputSink {
    let format: AudioFormat
    /// The first error, after which nothing more is written.
    private(set) var failure: WAVError?
    private let writer: WAVWriter
    private var converter: AudioResampler?

    /// Creates (or truncates) the file at `path`.
    init(path: String, format: AudioFormat) throws(WAVError) {
        self.format = format
        writer = try WAVWriter(path: path, format: format)
    }

    func write(_ frame: AudioFrame) {
        guard failure == nil else { return }
        var frame = frame
        if frame.format != format {
            // Not expected from a session (it writes in the format it opened the sink with); converted rather than
            // dropped all the same.
            if converter?.inputFormat != frame.format { converter = try? AudioResampler(from: frame.format, to: format) }
            guard var converter else { return }
            frame = converter.process(frame)
            self.converter = converter
        }
        do { try writer.append(frame) } catch { failure = error }
    }

    func close() {
        guard failure == nil else { return }
        do { try writer.close() } catch { failure = error }
    }
}
