import Carillon
import CarillonCodecs
import Foundation
import Synchronization

/// What a headless attendee does with remote video: it binds a sink to every remote tile, counts its frames, writes
/// them to `DIR/<ExternalUserId>.y4m` when asked (`<ExternalUserId>#content.y4m` for a content tile; `-2`, `-3`, …
/// after each size change), prints tile events, and once a second `videoStats` per tile.
///
/// Threading: tile callbacks and frames arrive on the session's callback queue; ``report(statistics:)`` may run
/// on any thread (the tiles are behind a mutex).
final class TileRecorder: VideoTileObserver, @unchecked Sendable {
    /// One remote tile's sink.
    final class TileSink: VideoRenderView, @unchecked Sendable {
        let tileId: Int
        let name: String
        let directory: String?
        let counts = Mutex((frames: 0, width: 0, height: 0))
        private var writer: Y4MWriter?
        private var files = 0
        private var size = (width: 0, height: 0)
        /// Problems writing, reported once.
        private var failed = false

        init(tileId: Int, name: String, directory: String?) {
            self.tileId = tileId
            self.name = name
            self.directory = directory
        }

        func onVideoFrameReceived(frame: VideoFrame) {
            counts.withLock { $0 = ($0.frames + 1, frame.width, frame.height) }
            guard let directory, !failed, let buffer = frame.buffer as? VideoFrameI420Buffer else { return }
            do {
                if size != (frame.width, frame.height) || writer == nil {
                    try writer?.close()
                    files += 1
                    size = (frame.width, frame.height)
                    let file = files == 1 ? "\(name).y4m" : "\(name)-\(files).y4m"
                    writer = try Y4MWriter(path: (directory as NSString).appendingPathComponent(file),
                                           header: Y4MHeader(width: frame.width, height: frame.height,
                                                             frameRate: .init(15, 1)))
                }
                try writer?.append(buffer.image)
            } catch {
                failed = true
                StandardOutput.line("could not record \(name): \(error)")
            }
        }

        func close() { try? writer?.close() }
    }

    private let facade: DefaultAudioVideoFacade
    private let directory: String?
    private let line: EventLine
    private let names: @Sendable (String) -> String
    private let tiles = Mutex<[Int: TileSink]>([:])
    private let previous = Mutex<[Int: (frames: Int, bytes: Int)]>([:])

    /// Records into `directory` (nil: counts only); `names` gives an attendee id's ExternalUserId.
    init(facade: DefaultAudioVideoFacade, directory: String?, line: EventLine,
         names: @escaping @Sendable (String) -> String) {
        self.facade = facade
        self.directory = directory
        self.line = line
        self.names = names
    }

    /// The frames each remote attendee's tile got so far, by ExternalUserId.
    var framesByAttendee: [String: (frames: Int, width: Int, height: Int)] {
        tiles.withLock { tiles in
            Dictionary(tiles.values.map { ($0.name, $0.counts.withLock { $0 }) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private func name(of state: VideoTileState) -> String {
        // A share in the roster has its own ExternalUserId, `<ExternalUserId>#content`, even when its attendee's
        // main session is not in the meeting (a third-party sender).
        let known = names(state.attendeeId)
        if known != state.attendeeId { return known }
        let base = state.attendeeId.hasSuffix("#content") ? String(state.attendeeId.dropLast(8)) : state.attendeeId
        return names(base) + (state.isContent ? "#content" : "")
    }

    private func emit(_ event: String, _ state: VideoTileState) {
        line.emit(event, ["attendee": name(of: state), "tileId": state.tileId, "width": state.videoStreamContentWidth,
                          "height": state.videoStreamContentHeight, "local": state.isLocalTile,
                          "pauseState": "\(state.pauseState)"],
                  text: "video \(event.dropFirst(4).lowercased()): \(state.isLocalTile ? "local" : name(of: state)) "
                      + "\(state.videoStreamContentWidth)x\(state.videoStreamContentHeight)")
    }

    func videoTileDidAdd(tileState: VideoTileState) {
        emit("tileAdded", tileState)
        guard !tileState.isLocalTile else { return }
        let sink = TileSink(tileId: tileState.tileId, name: name(of: tileState), directory: directory)
        tiles.withLock { $0[tileState.tileId] = sink }
        facade.bindVideoView(videoView: sink, tileId: tileState.tileId)
    }

    func videoTileDidRemove(tileState: VideoTileState) {
        emit("tileRemoved", tileState)
        tiles.withLock { $0.removeValue(forKey: tileState.tileId) }?.close()
    }

    func videoTileDidPause(tileState: VideoTileState) { emit("tilePaused", tileState) }
    func videoTileDidResume(tileState: VideoTileState) { emit("tileResumed", tileState) }
    func videoTileSizeDidChange(tileState: VideoTileState) { emit("tileResized", tileState) }

    /// One `videoStats` event per remote tile: size, frames per second and kbit/s over the last call's interval.
    func report(statistics: [RemoteVideoStatistics], seconds: Double) {
        let bytes = Dictionary(statistics.map { ($0.videoId, $0.bytesReceived) }, uniquingKeysWith: { first, _ in first })
        let sinks = tiles.withLock { Array($0.values) }.sorted { $0.tileId < $1.tileId }
        for sink in sinks {
            let counts = sink.counts.withLock { $0 }
            let received = bytes[sink.tileId] ?? 0
            let before = previous.withLock { $0[sink.tileId] } ?? (frames: 0, bytes: 0)
            previous.withLock { $0[sink.tileId] = (counts.frames, received) }
            let fps = Double(counts.frames - before.frames) / seconds
            let kbps = Double(received - before.bytes) * 8 / 1_000 / seconds
            line.emit("videoStats", ["attendee": sink.name, "tileId": sink.tileId, "width": counts.width,
                                     "height": counts.height, "fps": (fps * 10).rounded() / 10,
                                     "kbps": kbps.rounded(), "framesDecoded": counts.frames],
                      text: String(format: "video from %@: %dx%d, %.1f fps, %.0f kbit/s, %d frames", sink.name,
                                   counts.width, counts.height, fps, kbps, counts.frames))
        }
    }

    /// Closes every file (the session ended).
    func close() {
        for sink in tiles.withLock({ Array($0.values) }) { sink.close() }
    }
}
