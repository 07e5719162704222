import NIOCore

/// What a meeting hands to one socket's writer task.
public enum SignalingOutbound: Sendable {
    /// One encoded WebSocket binary message (type byte plus frame).
    case message(ByteBuffer)
    /// Close the socket with this code; nothing follows.
    case close(UInt16)
}
