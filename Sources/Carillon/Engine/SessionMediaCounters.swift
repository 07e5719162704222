import CarillonRTC

/// What one session's media connection sent and received so far, read on the session's loop: a benchmark's view of
/// a bot run on the product's session (``SessionEngine/mediaCounters()``). A value; safe anywhere.
package struct SessionMediaCounters: Sendable {
    /// The current media connection's transport counters (RTP and RTCP in and out, datagrams dropped); nil without
    /// one.
    package var connection: PeerConnectionStatistics?
    /// Camera media packets sent and frames sent on the current connection.
    package var videoPacketsSent: Int
    package var videoFramesSent: Int
    /// Each received remote video's counters.
    package var receivedVideos: [RemoteVideoStatistics]
}
