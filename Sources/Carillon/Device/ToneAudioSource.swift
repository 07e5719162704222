import CarillonCodecs

/// A virtual microphone playing a sine tone forever, for bots and tests (`tone:440`).
///
/// A value type owned by the session's media loop.
struct ToneAudioSource: AudioInputSource {
    let format: AudioFormat
    private var generator: ToneGenerator

    init(frequency: Double, amplitude: Double, format: AudioFormat) {
        self.format = format
        generator = ToneGenerator(frequency: frequency, amplitude: amplitude, format: format)
    }

    mutating func read(frameMilliseconds: Int) -> AudioFrame {
        generator.next(milliseconds: frameMilliseconds)
    }
}
