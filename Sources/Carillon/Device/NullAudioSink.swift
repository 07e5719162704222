import CarillonCodecs

/// A virtual speaker that discards what it is given, counting it; also what a session plays to when its output cannot
/// be opened.
///
/// Owned by the session's media loop (not thread-safe).
final class NullAudioSink: AudioOutputSink {
    let format: AudioFormat
    /// Frames written so far.
    private(set) var framesWritten = 0

    init(format: AudioFormat) {
        self.format = format
    }

    func write(_ frame: AudioFrame) {
        framesWritten += 1
    }
}
