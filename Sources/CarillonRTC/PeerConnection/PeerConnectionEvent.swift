/// What a ``PeerConnection`` reports.
public enum PeerConnectionEvent: Sendable, Equatable {
    /// ICE chose the path to the peer: datagrams go to this address.
    case iceConnected(STUNAddress)
    /// The peer moved to a new address (its network changed, or an ICE restart chose another path).
    case pathChanged(STUNAddress)
    /// DTLS completed and SRTP is keyed with this profile: media flows from now on.
    case connected(SRTPProfile)
    /// A decrypted RTP packet.
    case rtp(RTPPacket)
    /// A decrypted RTCP compound packet.
    case rtcp([RTCPPacket])
    /// The connection is over and cannot recover without a new one (or an ICE restart for ICE failures).
    case failed(PeerConnectionFailure)
    /// The peer closed DTLS (close_notify).
    case closed
}
