import CarillonCodecs

/// A virtual microphone that is always silent; also what an ALSA capture device gives until Carillon captures from
/// ALSA.
///
/// A value type owned by the session's media loop.
struct SilenceAudioSource: AudioInputSource {
    let format: AudioFormat

    func read(frameMilliseconds: Int) -> AudioFrame {
        .silence(format: format, milliseconds: frameMilliseconds)
    }
}
