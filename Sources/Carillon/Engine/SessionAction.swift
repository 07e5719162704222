import CarillonProtocol

/// What the session core asks its shell to do.
enum SessionAction: Sendable {
    /// Open a new signaling socket (any older one is abandoned).
    case openSocket
    /// Send one frame on the current socket.
    case send(SdkSignalFrame)
    /// Close the current socket.
    case closeSocket
    /// Tell the app.
    case event(SessionEvent)
    /// Make a new media connection's local offer for `plan` and hand it to
    /// ``SignalingSessionCore/mediaOfferReady(_:now:)``.
    case prepareMedia(SessionMediaPlan)
    /// Make a new offer for `plan` on the running media connection (same transport) and hand it to
    /// ``SignalingSessionCore/mediaOfferReady(_:now:)``.
    case renegotiateMedia(SessionMediaPlan)
    /// Apply the server's answer to the prepared media connection and connect it.
    case connectMedia(answer: String, video: SessionVideoNegotiation)
    /// Apply the server's answer to a renegotiation of the running media connection.
    case applyAnswer(answer: String, video: SessionVideoNegotiation)
    /// Tear down the media connection, if any.
    case stopMedia
    /// The received streams whose sender stopped sending, by stream id (INDEX `paused_at_source_ids`): their tiles
    /// show `pausedForPoorConnection` until frames come again.
    case setVideoPausedAtSource(Set<UInt32>)
}
