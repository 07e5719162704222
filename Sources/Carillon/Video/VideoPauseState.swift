/// Whether a video tile is receiving frames, with the Chime SDK's raw values.
///
/// A pause the user asked for (``pausedByUserRequest``, through `pauseRemoteVideoTile(tileId:)`) lasts until the user
/// resumes the tile, and hides a pause for poor connection while it lasts. A pause for poor connection
/// (``pausedForPoorConnection``) is set and cleared by the session when the server stops and restarts forwarding that
/// video because the downlink is too weak; `resumeRemoteVideoTile(tileId:)` does not clear it. A plain value.
public enum VideoPauseState: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Frames flow.
    case unpaused = 0
    /// Paused by `pauseRemoteVideoTile(tileId:)`.
    case pausedByUserRequest = 1
    /// Paused by the server for lack of bandwidth.
    case pausedForPoorConnection = 2

    /// The case name.
    public var description: String {
        switch self {
        case .unpaused: "unpaused"
        case .pausedByUserRequest: "pausedByUserRequest"
        case .pausedForPoorConnection: "pausedForPoorConnection"
        }
    }
}
