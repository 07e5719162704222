import CarillonProtocol

/// What a video tile shows: whose video, its size, whether it is paused, whether it is local or content.
///
/// The tile controller changes ``videoStreamContentWidth``, ``videoStreamContentHeight`` and ``pauseState`` in place
/// and hands observers this same object, as the Chime SDK does: an observer reading it later sees the latest values.
/// Threading: the controller touches it only on the session's callback queue, where observers read it; read it
/// there.
public final class VideoTileState {
    /// The tile's id: the session's id of the video it shows (remote videos get a new id when they restart).
    public let tileId: Int
    /// Whose video: a remote attendee, `<attendeeId>#content` for a content share, or this attendee for the local
    /// tile.
    public let attendeeId: String
    /// Width of the video in pixels (0 until a frame has arrived).
    public var videoStreamContentWidth: Int
    /// Height of the video in pixels (0 until a frame has arrived).
    public var videoStreamContentHeight: Int
    /// Whether frames are flowing.
    public var pauseState: VideoPauseState
    /// Whether it shows this attendee's own video.
    public let isLocalTile: Bool
    /// Whether it shows a content share (the attendee id ends with `#content`).
    public let isContent: Bool

    /// Creates a state; ``isContent`` is derived from `attendeeId`.
    public init(tileId: Int, attendeeId: String, videoStreamContentWidth: Int, videoStreamContentHeight: Int,
                pauseState: VideoPauseState, isLocalTile: Bool) {
        self.tileId = tileId
        self.attendeeId = attendeeId
        self.videoStreamContentWidth = videoStreamContentWidth
        self.videoStreamContentHeight = videoStreamContentHeight
        self.pauseState = pauseState
        self.isLocalTile = isLocalTile
        self.isContent = attendeeId.hasSuffix(JoinToken.contentSuffix)
    }
}
