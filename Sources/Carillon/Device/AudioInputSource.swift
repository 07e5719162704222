import CarillonCodecs

/// Where a session's outgoing audio comes from: a microphone, a file, a tone, or anything an app or bot generates.
///
/// The session opens a source in its own format (the ``AudioMode``'s: 16 kHz mono, 48 kHz mono or 48 kHz stereo) and
/// reads one frame every 20 ms. Threading: a source is owned by the session's media event loop once opened; it need
/// not be thread-safe.
public protocol AudioInputSource {
    /// The format of every frame ``read(frameMilliseconds:)`` returns: the session's, given when it was opened.
    var format: AudioFormat { get }

    /// The next `frameMilliseconds` of audio in ``format``: exactly that long, never short (a source with nothing to
    /// say returns silence).
    mutating func read(frameMilliseconds: Int) -> AudioFrame
}
