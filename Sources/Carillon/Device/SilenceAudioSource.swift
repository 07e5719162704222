import CarillonCodecs

/// A virtual microphone that is always silent; also what a session sends when its input cannot be opened.
///
/// A value type owned by the session's media loop.
struct SilenceAudioSource: AudioInputSource {
    let format: AudioFormat

    func read(frameMilliseconds: Int) -> AudioFrame {
        .silence(format: format, milliseconds: frameMilliseconds)
    }
}
