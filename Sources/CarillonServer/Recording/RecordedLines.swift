/// A JSON lines record (`meeting-events/`, `data-channel/`): each line appended as it happens, to files named
/// `<folder>/<start stamp>.jsonl`, a new one once the chunk length has passed.
struct RecordedLines {
    let folder: String
    let clock: RecordingClock
    let chunkMilliseconds: Int64?
    private var current: (path: String, start: Int64)?

    init(folder: String, clock: RecordingClock, chunkMilliseconds: Int64?) {
        self.folder = folder
        self.clock = clock
        self.chunkMilliseconds = chunkMilliseconds
    }

    /// Writes one line (its bytes without the newline) at `milliseconds` from the recording's start.
    mutating func append(_ line: [UInt8], milliseconds: Int64, into operations: inout [RecordingFileOperation]) {
        let bytes = line + [0x0A]
        if let current, !(chunkMilliseconds.map { milliseconds - current.start >= $0 } ?? false) {
            operations.append(.append(path: current.path, bytes: bytes))
            return
        }
        operations += finish()
        let path = "\(folder)/\(clock.fileStamp(milliseconds)).jsonl"
        current = (path, milliseconds)
        operations.append(.create(path: path, bytes: bytes))
    }

    /// Closes the open file.
    mutating func finish() -> [RecordingFileOperation] {
        guard let current else { return [] }
        self.current = nil
        return [.finish(path: current.path, ending: nil)]
    }
}
