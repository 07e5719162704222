/// A bot of the video bench as the measurement sees it, whichever server it is in: what it sent and, per stream,
/// what it received. ``WebRTCVideoBot`` (the Janus column) and ``ChimeBot`` (the Carillon column) conform.
protocol VideoBenchPeer: Sendable {
    /// Camera frames and RTP packets sent so far.
    func sentCounts() async -> (frames: Int, packets: Int)
    /// What it received so far, per stream (keyed by SSRC or by video id: only distinct within one bot).
    func receivedStreams() async -> [Int: ReceivedVideoCounts]
}
