/// An audio input that delivers Opus already encoded, 20 ms at a time (``EncodedAudioFrame``): registered like any
/// app-made input (``VirtualAudioDevices/addInput(label:type:open:)``), it is read with ``readEncoded()`` instead of
/// ``AudioInputSource/read(frameMilliseconds:)`` whenever a session uses it as its microphone, and the session's
/// encoder, Voice Focus and echo canceller are bypassed.
///
/// Why: benchmark bots send the same pre-encoded media to Carillon and to other servers, through the product's own
/// session. Threading: the session's loop reads it, once per 20 ms frame.
package protocol EncodedAudioInputSource: AudioInputSource {
    /// The next 20 ms frame.
    mutating func readEncoded() -> EncodedAudioFrame
}
