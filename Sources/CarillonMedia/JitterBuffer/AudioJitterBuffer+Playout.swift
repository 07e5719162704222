extension AudioJitterBuffer {
    /// What the decoder should produce for one frame of output.
    ///
    /// A plain value, safe to send to the decoding thread.
    public enum Playout: Sendable, Equatable {
        /// Decode this payload normally; `timestamp` is its RTP timestamp.
        case packet(ArraySlice<UInt8>, timestamp: UInt32)
        /// The frame is lost but the next packet is here: decode the in-band FEC it carries (Opus `decode_fec`). The
        /// payload stays buffered and is handed out again as `.packet` on the next call.
        case recoverFromNext(ArraySlice<UInt8>)
        /// The frame is lost or late and nothing follows it yet: run packet loss concealment for one frame.
        case conceal
        /// Nothing to play (before the first packet, after a long gap, or after too many concealments in a row):
        /// output one frame of comfort silence.
        case silence
    }
}
