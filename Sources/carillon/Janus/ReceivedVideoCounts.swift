/// What a video bench bot received on one stream: the same three counts in both columns of the side-by-side bench.
struct ReceivedVideoCounts: Sendable, Equatable {
    /// RTP packets.
    var packets = 0
    /// Complete frames (the Janus column's bots count marker bits, Carillon's session counts assembled frames).
    var frames = 0
    /// RTP payload bytes.
    var bytes = 0
}
