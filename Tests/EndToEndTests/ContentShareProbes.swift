import Carillon
import CarillonCodecs
import Foundation
import Synchronization

/// Records a content share's start and stop callbacks.
final class ShareProbe: ContentShareObserver, Sendable {
    struct Record: Sendable {
        var starts = 0
        var stops: [ContentShareStatusCode] = []
        /// The share session's status behind each stop (``ContentShareStatus/sessionStatusCode``).
        var causes: [MeetingSessionStatusCode?] = []
    }

    let name: String
    private let record = Mutex(Record())

    init(name: String) { self.name = name }

    var snapshot: Record { record.withLock { $0 } }

    func contentShareDidStart() { record.withLock { $0.starts += 1 } }
    func contentShareDidStop(status: ContentShareStatus) {
        record.withLock {
            $0.stops.append(status.statusCode)
            $0.causes.append(status.sessionStatusCode)
        }
    }

    /// Waits until `condition` holds, or fails after `timeout`.
    func wait(_ what: String, timeout: Duration = .seconds(10), until condition: (Record) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(snapshot) {
            guard ContinuousClock.now < deadline else {
                throw ProbeTimeout(description: "\(name): timed out waiting for \(what); saw \(snapshot)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Binds a sink to every remote tile of one session and keeps, per tile, its state and what its decoded pictures
/// show (`VideoPatternReading`, and a caller's reading of the raw picture).
final class TileWatcher: VideoTileObserver, @unchecked Sendable {
    struct Tile: Sendable {
        var attendeeId: String
        var isContent: Bool
        var removed = false
        var frames = 0
        /// Counters read from the pictures, in order of arrival (unreadable pictures left out).
        var counters: [Int] = []
        /// Palette colours read from the pictures.
        var colors: [String] = []
        /// The last picture.
        var last: I420Image?
        /// The decoded widths in order, one entry per change (a simulcast layer switch shows here).
        var widths: [Int] = []
        /// The pause states the tile went through, in order.
        var pauseStates: [VideoPauseState] = []
    }

    private final class Sink: VideoRenderView, @unchecked Sendable {
        let tileId: Int
        weak var watcher: TileWatcher?
        init(tileId: Int, watcher: TileWatcher) {
            self.tileId = tileId
            self.watcher = watcher
        }
        func onVideoFrameReceived(frame: VideoFrame) {
            guard let image = (frame.buffer as? VideoFrameI420Buffer)?.image else { return }
            watcher?.picture(image, tileId: tileId)
        }
    }

    let name: String
    private let facade: any AudioVideoFacade
    private let tiles = Mutex<[Int: Tile]>([:])

    init(name: String, facade: any AudioVideoFacade) {
        self.name = name
        self.facade = facade
    }

    var snapshot: [Int: Tile] { tiles.withLock { $0 } }

    /// The live tiles of `attendeeId`.
    func tiles(of attendeeId: String) -> [Tile] { snapshot.values.filter { $0.attendeeId == attendeeId && !$0.removed } }

    fileprivate func picture(_ image: I420Image, tileId: Int) {
        let reading = VideoPatternReading(image)
        tiles.withLock { tiles in
            tiles[tileId]?.frames += 1
            tiles[tileId]?.last = image
            if tiles[tileId]?.widths.last != image.width { tiles[tileId]?.widths.append(image.width) }
            if let counter = reading.counter {
                tiles[tileId]?.counters.append(counter)
                tiles[tileId]?.colors.append(reading.nearestColor()?.name ?? "?")
            }
        }
    }

    func videoTileDidAdd(tileState: VideoTileState) {
        guard !tileState.isLocalTile else { return }
        tiles.withLock { $0[tileState.tileId] = Tile(attendeeId: tileState.attendeeId, isContent: tileState.isContent) }
        facade.bindVideoView(videoView: Sink(tileId: tileState.tileId, watcher: self), tileId: tileState.tileId)
    }

    func videoTileDidRemove(tileState: VideoTileState) { tiles.withLock { $0[tileState.tileId]?.removed = true } }
    func videoTileDidPause(tileState: VideoTileState) { tiles.withLock { $0[tileState.tileId]?.pauseStates.append(tileState.pauseState) } }
    func videoTileDidResume(tileState: VideoTileState) { tiles.withLock { $0[tileState.tileId]?.pauseStates.append(tileState.pauseState) } }
    func videoTileSizeDidChange(tileState: VideoTileState) {}

    /// Waits until `condition` holds on the tiles, or fails after `timeout`.
    func wait(_ what: String, timeout: Duration = .seconds(10), until condition: ([Int: Tile]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(snapshot) {
            guard ContinuousClock.now < deadline else {
                let seen = snapshot.values.map { "\($0.attendeeId) content=\($0.isContent) frames=\($0.frames) removed=\($0.removed) counters=\($0.counters.suffix(5)) widths=\($0.widths) pauses=\($0.pauseStates)" }
                throw ProbeTimeout(description: "\(name): timed out waiting for \(what); tiles \(seen)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
