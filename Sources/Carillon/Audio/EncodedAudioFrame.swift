/// 20 ms of audio that is already Opus: what an ``EncodedAudioInputSource`` gives the session instead of PCM.
///
/// Why: a bot that plays prepared audio (a benchmark's tone, a recorded prompt) sends it without running the encoder
/// every 20 ms. The session packetizes it as it would its own encoder's output: same numbering, payload type and
/// audio-level extension. A value; safe anywhere.
package struct EncodedAudioFrame: Sendable, Equatable {
    /// The Opus packet (RFC 6716) of one 20 ms frame at 48 kHz; nil sends nothing for this frame (a DTX gap: the
    /// timestamp moves on, the sequence number does not).
    package var payload: [UInt8]?
    /// The RFC 6464 level of the frame, 0 (loudest) to 127 (silence).
    package var level: UInt8
    /// Whether the frame counts as speech (the audio-level extension's voice flag).
    package var voiceActive: Bool

    /// Creates a frame.
    package init(payload: [UInt8]?, level: UInt8, voiceActive: Bool) {
        self.payload = payload
        self.level = level
        self.voiceActive = voiceActive
    }
}
