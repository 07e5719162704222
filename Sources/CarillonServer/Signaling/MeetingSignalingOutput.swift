import CarillonProtocol

/// What ``MeetingSignalingCore`` asks its shell to do.
public enum MeetingSignalingOutput: Sendable {
    /// Send one frame to each of these sockets (encoded once, written to all).
    case send([SignalingConnectionID], SdkSignalFrame)
    /// Close a socket with a WebSocket close code.
    case close(SignalingConnectionID, code: UInt16)
}
