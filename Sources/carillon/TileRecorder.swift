import Carillon
import CarillonCodecs
import Foundation
import Synchronization

/// What a headless attendee does with remote video: it binds a sink to every remote tile, counts its frames, writes
/// them to `DIR/<ExternalUserId>.y4m` when asked (`<ExternalUserId>#content.y4m` for a content tile), prints tile
/// events, and once a second `videoStats` per tile. Nothing is ever overwritten: each size change, each tile added
/// again and each new tile of the same attendee continues in the next file (`-2`, `-3`, … numbered for the whole
/// process, see ``RecordingFiles``), so an attendee's files together hold every frame its tiles got.
///
/// Threading: tile callbacks and frames arrive on the session's callback queue; ``report(statistics:seconds:)`` may
/// run on any thread (the tiles are behind a mutex).
final class TileRecorder: VideoTileObserver, @unchecked Sendable {
    /// One remote tile's sink.
    final class TileSink: VideoRenderView, @unchecked Sendable {
        let tileId: Int
        let name: String
        /// The attendee id of the tile's source (`<attendeeId>#content` for a share), for `--json` events.
        let attendeeId: String
        let files: RecordingFiles?
        let counts = Mutex((frames: 0, width: 0, height: 0))
        // The rest is confined to the callback queue.
        private var writer: Y4MWriter?
        private var size = (width: 0, height: 0)
        /// Set by ``close()``: a frame still in flight for a removed tile is neither counted nor written, so the
        /// counts stay equal to what the files hold.
        private var closed = false
        /// Problems writing, reported once.
        private var failed = false

        /// A sink for the tile `tileId` of `name` (attendee `attendeeId`), writing into `files` (nil: counts only).
        init(tileId: Int, name: String, attendeeId: String = "", files: RecordingFiles?) {
            self.attendeeId = attendeeId
            self.tileId = tileId
            self.name = name
            self.files = files
        }

        func onVideoFrameReceived(frame: VideoFrame) {
            guard !closed else { return }
            counts.withLock { $0 = ($0.frames + 1, frame.width, frame.height) }
            guard let files, !failed, let buffer = frame.buffer as? VideoFrameI420Buffer else { return }
            do {
                if size != (frame.width, frame.height) || writer == nil {
                    try writer?.close()
                    writer = nil
                    size = (frame.width, frame.height)
                    writer = try files.create(name, header: Y4MHeader(width: frame.width, height: frame.height,
                                                                      frameRate: .init(15, 1)))
                }
                try writer?.append(buffer.image)
            } catch {
                failed = true
                StandardOutput.line("could not record \(name): \(error)")
            }
        }

        /// Closes the file; later frames are ignored.
        func close() {
            closed = true
            try? writer?.close()
            writer = nil
        }
    }

    /// Frames per second (or any per-second rate) from a cumulative counter: never negative. A counter below the
    /// previous reading started again from 0 (a new stream under a reused id), so all of it is new.
    static func perSecond(current: Int, previous: Int?, seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        let previous = previous ?? 0
        return Double(current >= previous ? current - previous : current) / seconds
    }

    private let facade: DefaultAudioVideoFacade
    private let line: EventLine
    private let names: @Sendable (String) -> String
    private let files: RecordingFiles?
    private let tiles = Mutex<[Int: TileSink]>([:])
    /// The frames of the removed tiles' sinks by name, and the last size they had, so totals cover every tile.
    private let removed = Mutex<[String: (frames: Int, width: Int, height: Int)]>([:])
    /// What the last `videoStats` of each sink read (frames, bytes), by sink: a tile id may come back with a new sink.
    private let previous = Mutex<[ObjectIdentifier: (frames: Int, bytes: Int)]>([:])

    /// Records into `directory` (nil: counts only); `names` gives an attendee id's ExternalUserId.
    init(facade: DefaultAudioVideoFacade, directory: String?, line: EventLine,
         names: @escaping @Sendable (String) -> String) {
        self.facade = facade
        self.files = directory.map(RecordingFiles.init(directory:))
        self.line = line
        self.names = names
    }

    /// The frames each remote attendee's tiles got so far (all of them, removed ones included), by ExternalUserId,
    /// with the size of the latest frame of its current tile (or of its last removed one).
    var framesByAttendee: [String: (frames: Int, width: Int, height: Int)] {
        var totals = removed.withLock { $0 }
        for sink in tiles.withLock({ $0.values.sorted { $0.tileId < $1.tileId } }) {
            let counts = sink.counts.withLock { $0 }
            let frames = (totals[sink.name]?.frames ?? 0) + counts.frames
            totals[sink.name] = counts.frames > 0 ? (frames, counts.width, counts.height)
                : (frames, totals[sink.name]?.width ?? 0, totals[sink.name]?.height ?? 0)
        }
        return totals
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
        line.emit(event, ["attendee": name(of: state), "attendeeId": state.attendeeId, "tileId": state.tileId, "width": state.videoStreamContentWidth,
                          "height": state.videoStreamContentHeight, "local": state.isLocalTile,
                          "pauseState": "\(state.pauseState)"],
                  text: "video \(event.dropFirst(4).lowercased()): \(state.isLocalTile ? "local" : name(of: state)) "
                      + "\(state.videoStreamContentWidth)x\(state.videoStreamContentHeight) (tile \(state.tileId))")
    }

    func videoTileDidAdd(tileState: VideoTileState) {
        emit("tileAdded", tileState)
        guard !tileState.isLocalTile else { return }
        let sink = TileSink(tileId: tileState.tileId, name: name(of: tileState), attendeeId: tileState.attendeeId,
                            files: files)
        // The byte counter of a video id may predate this tile: its first rate counts from here.
        let bytes = facade.remoteVideoStatistics().first { $0.videoId == tileState.tileId }?.bytesReceived ?? 0
        previous.withLock { $0[ObjectIdentifier(sink)] = (0, bytes) }
        // A tile id added again without a removal in between (not expected) must not lose the first sink's frames.
        tiles.withLock { $0.updateValue(sink, forKey: tileState.tileId) }.map(retire)
        facade.bindVideoView(videoView: sink, tileId: tileState.tileId)
    }

    func videoTileDidRemove(tileState: VideoTileState) {
        emit("tileRemoved", tileState)
        tiles.withLock { $0.removeValue(forKey: tileState.tileId) }.map(retire)
    }

    /// Closes a sink whose tile went and keeps its frame count for the totals.
    private func retire(_ sink: TileSink) {
        sink.close()
        let counts = sink.counts.withLock { $0 }
        removed.withLock { removed in
            let before = removed[sink.name]
            removed[sink.name] = counts.frames > 0 ? ((before?.frames ?? 0) + counts.frames, counts.width, counts.height)
                : (before?.frames ?? 0, before?.width ?? 0, before?.height ?? 0)
        }
        previous.withLock { $0[ObjectIdentifier(sink)] = nil }
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
            // Per sink, not per tile id: a tile id that comes back has a new sink whose count starts at 0.
            let before = previous.withLock { $0.updateValue((counts.frames, received), forKey: ObjectIdentifier(sink)) }
            let fps = Self.perSecond(current: counts.frames, previous: before?.frames, seconds: seconds)
            let kbps = Self.perSecond(current: received, previous: before?.bytes, seconds: seconds) * 8 / 1_000
            line.emit("videoStats", ["attendee": sink.name, "attendeeId": sink.attendeeId, "tileId": sink.tileId, "width": counts.width,
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
