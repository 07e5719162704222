/// One recorded stream cut into WebM files ("chunks") of about ``chunkMilliseconds`` each, or kept whole, sans-IO:
/// it says which file to start, what to append to which, and how to finish each (``Effect``); a shell applies that to
/// files. Each chunk is a ``WebMWriter`` file of its own, its timestamps from its own start, so every finished chunk
/// plays on its own, and one cut short by a killed process plays up to its last closed cluster.
///
/// With a video track, a chunk starts only at a key frame of the first video track: once a chunk is due,
/// ``wantsKeyFrame`` is true until one comes (the recorder asks the sender for it), and frames until then stay in
/// the current chunk. An audio-only recording cuts at the first frame at or after the due time.
///
/// Costs: those of ``WebMWriter``. Threading: a value; one owner at a time.
public struct WebMChunkedRecording: Sendable {
    /// What to do with files, in order.
    public enum Effect: Sendable, Equatable {
        /// Create chunk `index` (its first frame `startMilliseconds` after the recording's start) with `bytes`.
        case create(index: Int, startMilliseconds: Int64, bytes: [UInt8])
        /// Append `bytes` to chunk `index`.
        case append(index: Int, bytes: [UInt8])
        /// Append `ending.appended` to chunk `index`, apply `ending.patches`, and close it: it is complete.
        case finish(index: Int, ending: WebMWriter.Ending)
    }

    /// The tracks of every chunk.
    public let tracks: [WebMTrack]
    /// How long a chunk runs before the next is due, ms; nil: one file for the whole recording.
    public let chunkMilliseconds: Int64?
    private var writer: WebMWriter?
    private var index = -1
    private var chunkStart: Int64 = 0
    private let cutTrack: Int
    private let cutsAtKeyFrames: Bool
    private var isFinished = false

    /// A recording of `tracks` cut every `chunkMilliseconds` (nil or 0: never). Refuses tracks ``WebMWriter`` would.
    public init(tracks: [WebMTrack], chunkMilliseconds: Int64?) throws(WebMWriterError) {
        _ = try WebMWriter(tracks: tracks)
        self.tracks = tracks
        self.chunkMilliseconds = chunkMilliseconds.flatMap { $0 > 0 ? $0 : nil }
        let video = tracks.first { $0.isVideo }
        cutTrack = (video ?? tracks[0]).number
        cutsAtKeyFrames = video != nil
    }

    /// Whether a chunk is due and waits for a key frame of the video track (ask the sender for one).
    public func wantsKeyFrame(at milliseconds: Int64) -> Bool {
        cutsAtKeyFrames && writer != nil && chunkDue(at: milliseconds)
    }

    /// Whether the open chunk has run its length by `milliseconds` (never without a chunk length).
    private func chunkDue(at milliseconds: Int64) -> Bool {
        chunkMilliseconds.map { milliseconds - chunkStart >= $0 } ?? false
    }

    /// One frame of `track` at `milliseconds` from the recording's start (never going back within a track).
    public mutating func append(_ frame: [UInt8], track: Int, milliseconds: Int64, keyFrame: Bool,
                                durationMilliseconds: Int64 = 0) throws(WebMWriterError) -> [Effect] {
        guard !isFinished else { throw .finished }
        guard tracks.contains(where: { $0.number == track }) else { throw .unknownTrack(track) }
        var effects: [Effect] = []
        let due = writer == nil || chunkDue(at: milliseconds)
        if due, track == cutTrack, keyFrame || !cutsAtKeyFrames {
            effects += finishChunk()
            let started = try WebMWriter(tracks: tracks)
            index += 1
            chunkStart = milliseconds
            effects.append(.create(index: index, startMilliseconds: milliseconds, bytes: started.header))
            writer = started
        }
        // Before the first chunk (no key frame yet) there is nowhere to put the frame.
        guard writer != nil else { return effects }
        let relative = max(0, milliseconds - chunkStart)
        let closed = try writer!.append(frame, track: track, milliseconds: relative, keyFrame: keyFrame,
                                        durationMilliseconds: durationMilliseconds)
        if !closed.isEmpty { effects.append(.append(index: index, bytes: closed)) }
        return effects
    }

    /// Ends the recording: the open chunk is finished.
    public mutating func finish() -> [Effect] {
        guard !isFinished else { return [] }
        isFinished = true
        return finishChunk()
    }

    private mutating func finishChunk() -> [Effect] {
        guard var current = writer else { return [] }
        let ending = current.finish()
        writer = nil
        return [.finish(index: index, ending: ending)]
    }
}
