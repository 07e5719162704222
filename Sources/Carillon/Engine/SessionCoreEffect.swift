import CarillonProtocol
import CarillonRTC

/// What a ``SessionCore`` asks its shell to do: socket work, device work and delivery to the app. Everything else
/// (routing between the signaling, audio and video cores, the peer connection, the offers and answers) happens
/// inside the core.
enum SessionCoreEffect {
    /// Open the signaling WebSocket, closing any open one; report it with ``SessionCore/signalingOpened(now:)``.
    case openSignaling
    /// Send this frame on the signaling WebSocket.
    case sendSignaling(SdkSignalFrame)
    /// Close the signaling WebSocket.
    case closeSignaling
    /// Bind a UDP socket for a new media connection, closing any bound before, and report its address with
    /// ``SessionCore/mediaSocketBound(_:generation:now:)`` (or ``SessionCore/mediaSocketFailed(generation:now:)``).
    /// A bind that completes for an older generation than ``SessionCore/mediaGeneration`` is closed unused.
    case bindMediaSocket(generation: Int)
    /// Put one datagram on the media socket.
    case sendDatagram([UInt8], to: STUNAddress)
    /// Close the media socket.
    case closeMediaSocket
    /// A session event for the app's observers (and the analytics).
    case event(SessionEvent)
    /// Device work or app delivery from the media side: `openDevices` (then
    /// ``SessionCore/setEchoCancellation(_:)``), `closeDevices`, `play`, the remote-video effects, `videoStatistics`,
    /// `metrics`, `connectionBecamePoor` and `connectionRecovered`. Never `sendRTP`, `sendRTCP`, `videoMetrics`,
    /// `clientMetric` or `reconnect`: the core carries those out itself.
    case media(SessionMediaEffect)
}
