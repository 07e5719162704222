import CarillonCodecs
import Dispatch
import Synchronization

/// One WAV recording of what a session plays (the `record:<path>` virtual output), across every time a session
/// opens the output: the first opening in the process creates (or truncates) the file; each later one, after a
/// reconnect or a device change, appends to it, after as much silence as the output was closed, so the file keeps
/// the meeting's timeline. A gap longer than ``longestGap`` is left out instead (a stopped and much later restarted
/// session would otherwise write hours of zeros), with a log line giving its length.
///
/// The time comes from `clock`, monotonic nanoseconds (`DispatchTime` by default): this is the device's I/O shell,
/// not a core. Threading: safe from any thread (a mutex guards the state); each sink belongs to its session's loop.
final class WAVRecording: Sendable {
    /// The longest gap written as silence: ten minutes.
    static let longestGap: UInt64 = 600 * 1_000_000_000

    /// The file.
    let path: String
    private let clock: @Sendable () -> UInt64

    private struct State {
        /// The format of the file, fixed by the first opening.
        var format: AudioFormat?
        /// When the last sink closed; nil while one is open or before the first.
        var closedAt: UInt64?
    }

    private let state = Mutex(State())

    /// A recording into `path`; nothing is created before the first ``open(format:logger:)``.
    init(path: String, clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.path = path
        self.clock = clock
    }

    /// Opens a sink for a session writing `format`: a new file the first time, else the same file continued.
    func open(format: AudioFormat, logger: (any Logger)?) throws(WAVError) -> WAVRecorderAudioSink {
        let (fileFormat, closedAt) = state.withLock { ($0.format, $0.closedAt) }
        let writer: WAVWriter
        if let fileFormat {
            writer = try WAVWriter(appendingTo: path, format: fileFormat)
        } else {
            writer = try WAVWriter(path: path, format: format)
        }
        state.withLock {
            $0.format = writer.format
            $0.closedAt = nil
        }
        let sink = WAVRecorderAudioSink(writer: writer, format: format) { [self] in
            let now = clock()
            state.withLock { $0.closedAt = now }
        }
        guard let closedAt else { return sink }
        let gap = clock() &- closedAt
        let seconds = (Double(gap) / 1e8).rounded() / 10  // tenths, for the log
        if gap > Self.longestGap {
            logger?.error(msg: "\(path): the output was closed for \(seconds) s; that gap is left out of the recording")
        } else {
            let sampleFrames = Int(gap * UInt64(writer.format.sampleRate) / 1_000_000_000)
            sink.writeSilence(sampleFrames: sampleFrames)
            logger?.info(msg: "\(path): continued after \(seconds) s closed, written as silence")
        }
        return sink
    }
}
