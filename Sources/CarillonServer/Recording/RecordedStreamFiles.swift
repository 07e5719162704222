import CarillonMedia

/// One recorded media stream (the mix, a camera, a content share) as files: a ``WebMChunkedRecording`` whose chunks
/// are named `<folder>/<start stamp><suffix>.webm` and given out as ``RecordingFileOperation``s. A stream whose
/// tracks change (a camera's new resolution) finishes its files and starts new ones.
///
/// A file is created with its first closed cluster, not before: a server killed before a chunk had anything to play
/// leaves no file of it, rather than a header a player stumbles on.
struct RecordedStreamFiles {
    let folder: String
    let suffix: String
    let clock: RecordingClock
    let chunkMilliseconds: Int64?
    private(set) var recording: WebMChunkedRecording?
    private var paths: [Int: String] = [:]
    /// Headers of chunks whose file is not created yet.
    private var headers: [Int: [UInt8]] = [:]
    /// The last frame's time, ms from the recording's start (a track never goes back).
    private(set) var lastMilliseconds: Int64?

    init(folder: String, suffix: String, clock: RecordingClock, chunkMilliseconds: Int64?) {
        self.folder = folder
        self.suffix = suffix
        self.clock = clock
        self.chunkMilliseconds = chunkMilliseconds
    }

    /// The tracks of the files being written; nil before the first frame and after ``finish()``.
    var tracks: [WebMTrack]? { recording?.tracks }

    /// Whether a chunk is due and waits for a video key frame.
    func wantsKeyFrame(at milliseconds: Int64) -> Bool { recording?.wantsKeyFrame(at: milliseconds) ?? false }

    /// Appends a frame of track 1 to files of `tracks` (a change of tracks finishes the files and starts new ones);
    /// its time is kept from going back.
    mutating func append(_ frame: [UInt8], tracks: [WebMTrack], milliseconds: Int64, keyFrame: Bool,
                         durationMilliseconds: Int64, into operations: inout [RecordingFileOperation]) {
        if recording?.tracks != tracks {
            operations += finish()
            recording = try? WebMChunkedRecording(tracks: tracks, chunkMilliseconds: chunkMilliseconds)
            lastMilliseconds = nil
        }
        guard recording != nil else { return }
        let time = max(milliseconds, lastMilliseconds ?? 0)
        guard let effects = try? recording!.append(frame, track: tracks[0].number, milliseconds: time,
                                                   keyFrame: keyFrame, durationMilliseconds: durationMilliseconds)
        else { return }
        lastMilliseconds = time
        map(effects, into: &operations)
    }

    /// Finishes the open files; the next frame starts new ones.
    mutating func finish() -> [RecordingFileOperation] {
        guard var current = recording else { return [] }
        recording = nil
        var operations: [RecordingFileOperation] = []
        map(current.finish(), into: &operations)
        return operations
    }

    private mutating func map(_ effects: [WebMChunkedRecording.Effect], into operations: inout [RecordingFileOperation]) {
        for effect in effects {
            switch effect {
            case .create(let index, let start, let bytes):
                paths[index] = "\(folder)/\(clock.fileStamp(start))\(suffix).webm"
                headers[index] = bytes
            case .append(let index, let bytes):
                guard let path = paths[index] else { continue }
                // The header goes out with the first cluster, in the same batch.
                if let header = headers.removeValue(forKey: index) { operations.append(.create(path: path, bytes: header)) }
                operations.append(.append(path: path, bytes: bytes))
            case .finish(let index, let ending):
                guard let path = paths.removeValue(forKey: index) else { continue }
                if let header = headers.removeValue(forKey: index) { operations.append(.create(path: path, bytes: header)) }
                operations.append(.finish(path: path, ending: ending))
            }
        }
    }
}
