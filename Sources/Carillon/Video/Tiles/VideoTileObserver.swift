/// Hears about video tiles: added, removed, paused, resumed, resized.
///
/// Called asynchronously, in order, on the session's callback queue. The state passed is the tile's own object (see
/// ``VideoTileState``).
public protocol VideoTileObserver: AnyObject {
    /// A tile appeared: its first frame arrived, or it arrived paused. Bind a view to show it.
    func videoTileDidAdd(tileState: VideoTileState)
    /// A tile went: its video ended.
    func videoTileDidRemove(tileState: VideoTileState)
    /// A tile was paused, by the user or for poor connection (see ``VideoTileState/pauseState``).
    func videoTileDidPause(tileState: VideoTileState)
    /// A tile was resumed.
    func videoTileDidResume(tileState: VideoTileState)
    /// A tile's video changed size.
    func videoTileSizeDidChange(tileState: VideoTileState)
}
