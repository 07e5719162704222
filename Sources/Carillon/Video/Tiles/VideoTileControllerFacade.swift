/// What the app does with video tiles: bind views, observe tiles, pause and resume remote ones.
///
/// Threading: every method may be called from any thread; a call made on the session's callback queue takes effect
/// at once, one made elsewhere shortly after, in call order.
public protocol VideoTileControllerFacade: AnyObject {
    /// Shows tile `tileId` in `videoView` (kept strongly while bound). A view bound to another tile leaves it first;
    /// a view already bound to this tile is replaced. An unknown tile id does nothing.
    func bindVideoView(videoView: any VideoRenderView, tileId: Int)
    /// Removes the view of tile `tileId` and forgets the tile (as the Chime SDK does): a later frame of that video
    /// adds it again, with a new ``VideoTileObserver/videoTileDidAdd(tileState:)``.
    func unbindVideoView(tileId: Int)
    /// Adds a tile observer; kept strongly until removed.
    func addVideoTileObserver(observer: any VideoTileObserver)
    /// Removes a tile observer; it is not called again.
    func removeVideoTileObserver(observer: any VideoTileObserver)
    /// Asks the server to stop sending remote video `tileId` and marks the tile paused by the user (over a pause for
    /// poor connection). Refused, with a fault log, for the local tile.
    func pauseRemoteVideoTile(tileId: Int)
    /// Asks the server to send remote video `tileId` again; the tile is unpaused only if the user had paused it (a
    /// pause for poor connection stays until the server lifts it). Refused, with a fault log, for the local tile.
    func resumeRemoteVideoTile(tileId: Int)
}
