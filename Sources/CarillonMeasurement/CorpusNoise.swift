import CarillonCodecs

/// The background noises of the Voice Focus corpus (``SpeechCorpus/noise(_:using:)``), after the recipes of
/// `voice-focus.md`: the stationary noises a suppressor must remove and the non-stationary one (typing) that only a
/// speech model removes.
public enum CorpusNoise: String, CaseIterable, Sendable {
    /// Pink noise (power falling 3 dB per octave): HVAC and room noise.
    case pink
    /// A fan: brown rumble, 100 Hz mains hum with harmonics, all modulated at a 23 Hz blade rate.
    case fan
    /// Keyboard clicks: band-passed (0.8-7 kHz) 6 ms bursts with 1.2 ms decay, press and release 60-110 ms apart,
    /// about 7 keys a second.
    case keyboard
    /// The fan and the keyboard at equal power.
    case fanAndKeyboard = "fan+keyboard"
}
