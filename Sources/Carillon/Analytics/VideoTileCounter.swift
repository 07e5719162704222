import Synchronization

/// Counts a session's video tiles for the `maxVideoTileCount` attribute of the meeting events.
///
/// Registered by the facade as a tile observer, so it is called on the callback queue like any other.
final class VideoTileCounter: VideoTileObserver, Sendable {
    private let analytics: DefaultEventAnalyticsController
    private let shown = Mutex<Set<Int>>([])

    init(analytics: DefaultEventAnalyticsController) { self.analytics = analytics }

    func videoTileDidAdd(tileState: VideoTileState) {
        let count = shown.withLock { shown in
            shown.insert(tileState.tileId)
            return shown.count
        }
        analytics.videoTileCount(count)
    }

    func videoTileDidRemove(tileState: VideoTileState) { _ = shown.withLock { $0.remove(tileState.tileId) } }
    func videoTileDidPause(tileState: VideoTileState) {}
    func videoTileDidResume(tileState: VideoTileState) {}
    func videoTileSizeDidChange(tileState: VideoTileState) {}
}
