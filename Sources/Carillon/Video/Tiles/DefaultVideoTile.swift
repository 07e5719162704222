/// The SDK's ``VideoTile``: a state and a bound view, which receives every frame given to the tile.
///
/// New tiles start ``VideoPauseState/unpaused``; binding and unbinding log at info. Threading: not thread-safe; the
/// tile controller uses its tiles only on the session's callback queue.
public final class DefaultVideoTile: VideoTile {
    /// See ``VideoTile/state``.
    public let state: VideoTileState
    /// See ``VideoTile/videoRenderView``; kept strongly while bound.
    public var videoRenderView: (any VideoRenderView)?
    private let logger: any Logger

    /// Creates an unpaused tile with no view.
    public init(tileId: Int, attendeeId: String, videoStreamContentWidth: Int, videoStreamContentHeight: Int,
                isLocalTile: Bool, logger: any Logger) {
        state = VideoTileState(tileId: tileId, attendeeId: attendeeId, videoStreamContentWidth: videoStreamContentWidth,
                               videoStreamContentHeight: videoStreamContentHeight, pauseState: .unpaused,
                               isLocalTile: isLocalTile)
        self.logger = logger
    }

    /// See ``VideoTile/bind(videoRenderView:)``.
    public func bind(videoRenderView: (any VideoRenderView)?) {
        logger.info(msg: "Binding the view to tile: tileId: \(state.tileId), attendeeId: \(state.attendeeId)")
        self.videoRenderView = videoRenderView
    }

    /// See ``VideoTile/unbind()``.
    public func unbind() {
        logger.info(msg: "Unbinding the view from tile: tileId: \(state.tileId), attendeeId: \(state.attendeeId)")
        videoRenderView = nil
    }

    /// See ``VideoTile/setPauseState(pauseState:)``.
    public func setPauseState(pauseState: VideoPauseState) { state.pauseState = pauseState }

    /// Hands the frame to the bound view, if any, on the caller's thread.
    public func onVideoFrameReceived(frame: VideoFrame) { videoRenderView?.onVideoFrameReceived(frame: frame) }
}
