/// One video shown in the app: its state and the view bound to it. A sink: frames given to it go to the view.
///
/// Threading: the tile controller uses tiles only on the session's callback queue.
public protocol VideoTile: VideoSink {
    /// What the tile shows.
    var state: VideoTileState { get }
    /// The view receiving the tile's frames, if any.
    var videoRenderView: (any VideoRenderView)? { get set }
    /// Sets the view (nil: none).
    func bind(videoRenderView: (any VideoRenderView)?)
    /// Removes the view.
    func unbind()
    /// Sets ``VideoTileState/pauseState``.
    func setPauseState(pauseState: VideoPauseState)
}
