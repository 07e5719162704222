import CarillonRTC

/// The media half of a ``ChimeBot``: a bench bot's own socket and `PeerConnection` (``WebRTCAudioBot``,
/// ``WebRTCVideoBot``), which the Chime signaling of the SDK joins to a Carillon meeting.
protocol ChimeBotMedia: Sendable {
    /// The bot's ICE credentials, DTLS fingerprint and host candidate, for the offer.
    var transport: TransportDescription { get }
    /// The SSRC the offer's audio m-line declares.
    var audioSSRC: UInt32 { get }
    /// The SSRCs the offer's camera m-line declares when the bot sends video.
    var videoSSRCs: (media: UInt32, rtx: UInt32) { get }
    /// Starts the connection the server's answer describes (full ICE, controlling); `onConnected` runs once on the
    /// bot's loop: with nil when SRTP is keyed, with the failure when ICE or DTLS failed.
    func connect(answer sdp: String, onConnected: (@Sendable (String?) -> Void)?) throws
    /// How far the connection got: `new`, `ICE up`, `DTLS up` or `failed`.
    var connectionPhase: String { get }
    /// Stops sending and closes DTLS and the socket.
    func close() async
}
