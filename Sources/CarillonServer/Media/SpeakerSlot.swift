import CarillonCodecs

/// The codec pair a participant holds while it is one of the mixed speakers: a decoder for its uplink and a private
/// encoder for its minus-self mix.
///
/// The mixer creates one slot per possible speaker up front and lends them out, so codec memory does not grow with
/// the meeting and a tick never allocates a codec. Threading: not thread-safe (libopus state); its mixer's owner
/// keeps it.
final class SpeakerSlot {
    let decoder: OpusDecoder
    let encoder: OpusEncoder

    init(decoder: OpusDecoder, encoder: OpusEncoder) {
        self.decoder = decoder
        self.encoder = encoder
    }

    /// Forgets the previous holder's audio: a new holder's stream must not be decoded or predicted from another's.
    func reset() {
        decoder.reset()
        encoder.reset()
    }
}
