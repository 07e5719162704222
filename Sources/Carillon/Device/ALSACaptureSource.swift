import CarillonCodecs

/// A microphone: an ALSA capture PCM, read without blocking on the session's event loop.
///
/// Each ``read(frameMilliseconds:)`` moves what the device captured since the previous read into a small backlog and
/// returns the oldest `frameMilliseconds` of it. Until the backlog holds one frame more than is read (a cushion: the
/// device delivers whole periods, whose phase drifts against the session's 20 ms timer), reads return silence; so
/// they do again after the backlog ran dry (at the start, after an overrun, while the device is gone). The backlog
/// never holds more than ``backlogMilliseconds``: beyond, the oldest audio is dropped, so a device clock a little
/// faster than the session's, or a stalled loop, cannot make the latency grow.
///
/// Closed when released. Owned by the session's media loop (not thread-safe).
final class ALSACaptureSource: AudioInputSource {
    /// The most audio kept waiting between reads.
    static let backlogMilliseconds = 60
    /// The device buffer asked for: a loop stalled longer than this loses audio to an overrun.
    static let bufferMicroseconds: UInt32 = 80_000

    let format: AudioFormat
    private let pcm: ALSAPCM
    private var backlog: [Int16] = []
    private var scratch: [Int16]
    private var primed = false

    /// Opens the capture PCM `pcmName` (for example `plughw:1,0`) in `format` and starts capturing.
    init(pcmName: String, format: AudioFormat, logger: any Logger) throws(ALSAError) {
        pcm = try ALSAPCM(name: pcmName, direction: .input, format: format, bufferMicroseconds: Self.bufferMicroseconds,
                          startThreshold: 1, logger: logger)
        self.format = format
        scratch = [Int16](repeating: 0, count: pcm.bufferFrames * format.channels)
    }

    /// The ALSA name the source captures from.
    var pcmName: String { pcm.name }

    /// Whether the PCM is still open.
    var isOpen: Bool { pcm.isOpen }

    func read(frameMilliseconds: Int) -> AudioFrame {
        let wanted = format.interleavedSampleCount(milliseconds: max(frameMilliseconds, 0))
        capture()
        let limit = max(format.interleavedSampleCount(milliseconds: Self.backlogMilliseconds), 2 * wanted)
        if backlog.count > limit {
            pcm.report("backlog", "more than \(Self.backlogMilliseconds) ms captured between reads, dropping the oldest")
            backlog.removeFirst(backlog.count - limit)
        }
        if !primed { primed = backlog.count >= 2 * wanted }
        guard primed, wanted > 0 else { return .silence(format: format, milliseconds: max(frameMilliseconds, 0)) }
        let taken = min(wanted, backlog.count)
        var samples = Array(backlog[..<taken])
        backlog.removeFirst(taken)
        if taken < wanted {
            // Ran dry: pad, and build the cushion again before reading on.
            samples.append(contentsOf: repeatElement(0, count: wanted - taken))
            primed = false
        }
        return AudioFrame(format: format, samples: samples)
    }

    /// Stops capturing; later reads return silence. The source closes itself when released.
    func close() {
        pcm.close()
    }

    /// Moves everything the device has into the backlog. At most one device buffer per read, so a PCM that always
    /// has data (libasound's `null`) cannot keep the loop here.
    private func capture() {
        guard pcm.isOpen else { return }
        let frames = pcm.bufferFrames
        let transfer = scratch.withUnsafeMutableBufferPointer { buffer in
            pcm.read(into: buffer.baseAddress!, frames: frames)
        }
        guard case .frames(let count) = transfer else { return }
        backlog.append(contentsOf: scratch[..<(count * format.channels)])
    }
}
