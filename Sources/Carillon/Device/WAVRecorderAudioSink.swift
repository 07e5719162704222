import CarillonCodecs

/// A virtual speaker that records what the session plays into a WAV file, opened by a ``WAVRecording``.
///
/// The file is a valid WAV of everything written so far at every moment (``WAVWriter`` rewrites the header's sizes
/// with each frame), so a killed bot still leaves a playable recording. A write failure (a full disk) is kept in
/// ``failure`` and stops the recording; the session goes on. Owned by the session's media loop (not thread-safe).
final class WAVRecorderAudioSink: AudioOutputSink {
    /// The format the session writes in.
    let format: AudioFormat
    /// The first error, after which nothing more is written.
    private(set) var failure: WAVError?
    private let writer: WAVWriter
    private var converter: AudioResampler?
    /// Told when the sink closes, so that the next sink of the recording knows how long the gap was.
    private let onClose: () -> Void
    private var closed = false

    /// Creates (or truncates) the file at `path`, in `format`.
    convenience init(path: String, format: AudioFormat) throws(WAVError) {
        self.init(writer: try WAVWriter(path: path, format: format), format: format, onClose: {})
    }

    /// Writes what the session plays in `format` into `writer` (converted when the file has another format: a
    /// recording keeps the format it was started in); `onClose` runs once, at ``close()``.
    init(writer: WAVWriter, format: AudioFormat, onClose: @escaping () -> Void) {
        self.writer = writer
        self.format = format
        self.onClose = onClose
    }

    func write(_ frame: AudioFrame) {
        guard failure == nil, !closed else { return }
        var frame = frame
        if frame.format != writer.format {
            // Not expected from a session (it writes in the format it opened the sink with, and a recording's format
            // is the session's); converted rather than dropped all the same.
            if converter?.inputFormat != frame.format { converter = try? AudioResampler(from: frame.format, to: writer.format) }
            guard var converter else { return }
            frame = converter.process(frame)
            self.converter = converter
        }
        do { try writer.append(frame) } catch { failure = error }
    }

    /// Appends `count` sample frames of silence per channel (the time the recording was not open), in steps of at
    /// most a second so that a long gap costs no large buffer.
    func writeSilence(sampleFrames count: Int) {
        var left = count
        let second = writer.format.sampleRate
        while left > 0, failure == nil {
            let step = min(left, second)
            do { try writer.append(samples: [Int16](repeating: 0, count: step * writer.format.channels)) } catch { failure = error }
            left -= step
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        if failure == nil {
            do { try writer.close() } catch { failure = error }
        }
        onClose()
    }
}
