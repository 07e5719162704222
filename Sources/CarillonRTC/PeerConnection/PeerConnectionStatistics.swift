/// Counters of one ``PeerConnection``, for metrics and for tests.
public struct PeerConnectionStatistics: Sendable, Equatable {
    /// RTP packets protected and handed out for sending.
    public var rtpPacketsSent = 0
    /// RTP packets received, authenticated and parsed.
    public var rtpPacketsReceived = 0
    /// RTCP compound packets protected and handed out for sending.
    public var rtcpPacketsSent = 0
    /// RTCP compound packets received, authenticated and parsed.
    public var rtcpPacketsReceived = 0
    /// Payload bytes of RTP packets sent (header included, SRTP tag excluded).
    public var rtpBytesSent = 0
    /// Bytes of RTP packets received after decryption.
    public var rtpBytesReceived = 0
    /// Datagrams dropped: SRTP authentication or replay failures, malformed packets, media before keys, unknown
    /// sources.
    public var datagramsDropped = 0

    /// All zero.
    public init() {}
}
