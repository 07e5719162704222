import CarillonCodecs

/// A speaker: an ALSA playback PCM, written without blocking on the session's event loop.
///
/// The device buffer holds about 80 ms in periods of about 20 ms, and playback starts once two 20 ms frames are
/// queued, so the session's timer may run early or late by a frame without a gap. A frame that finds the buffer full
/// (the device's clock slower than the session's) is dropped, or its tail is: what waits in the device, and so the
/// latency, never exceeds the buffer. Underruns and suspends are recovered from; nothing is thrown.
///
/// Owned by the session's media loop (not thread-safe).
final class ALSAPlaybackSink: AudioOutputSink {
    /// The device buffer asked for.
    static let bufferMicroseconds: UInt32 = 80_000
    /// Queued audio that starts playback.
    static let startMilliseconds = 40

    let format: AudioFormat
    /// Frames (samples per channel) dropped because the device had no room or failed.
    private(set) var framesDropped = 0
    private let pcm: ALSAPCM
    private var converter: AudioResampler?

    /// Opens the playback PCM `pcmName` (for example `plughw:1,0`) in `format`.
    init(pcmName: String, format: AudioFormat, logger: any Logger) throws(ALSAError) {
        pcm = try ALSAPCM(name: pcmName, direction: .output, format: format, bufferMicroseconds: Self.bufferMicroseconds,
                          startThreshold: format.samplesPerFrame(milliseconds: Self.startMilliseconds), logger: logger)
        self.format = format
    }

    /// The ALSA name the sink plays to.
    var pcmName: String { pcm.name }

    /// Whether the PCM is still open.
    var isOpen: Bool { pcm.isOpen }

    func write(_ frame: AudioFrame) {
        guard pcm.isOpen else { return }
        var frame = frame
        if frame.format != format {
            // Not expected from a session (it writes in the format it opened the sink with); converted rather than
            // dropped all the same.
            if converter?.inputFormat != frame.format { converter = try? AudioResampler(from: frame.format, to: format) }
            guard var converter else {
                pcm.report("format", "cannot convert \(frame.format) to \(format), dropping audio")
                framesDropped += frame.frameCount
                return
            }
            frame = converter.process(frame)
            self.converter = converter
        }
        let total = frame.frameCount
        var written = 0
        var full = false
        frame.samples.withUnsafeBufferPointer { samples in
            // A recovered underrun leaves an empty, prepared stream, so the frame is written again; bounded, so a
            // device that keeps failing cannot hold the loop.
            transfer: for _ in 0..<3 where written < total {
                switch pcm.write(samples.baseAddress! + written * format.channels, frames: total - written) {
                case .frames(let count) where count > 0: written += count
                case .recovered: continue
                case .frames, .wouldBlock: full = true; break transfer
                case .failed: break transfer
                }
            }
        }
        framesDropped += total - written
        if full { pcm.report("full", "the device buffer is full (its clock is slower than the session's), dropping audio") }
    }

    /// Stops playing at once, discarding what the device still holds. Idempotent; also done when released.
    func close() {
        pcm.close()
    }
}
