import CCarillonAudioProcessing
import CarillonCodecs

/// Echo cancellation, automatic gain control and an 80 Hz high-pass filter on the microphone signal
/// (webrtc-audio-processing, the library PulseAudio and PipeWire use for their echo-cancel modules), sans-IO: fed what
/// the session plays (``played(_:)``, the far-end reference) and what it captures (``process(_:)``), it returns the
/// capture with the echo of the playout removed.
///
/// Frames are the session's format (8, 16, 32 or 48 kHz, mono or stereo) in both directions, before any resampling;
/// both are downmixed to mono, cleaned in
/// 10 ms blocks, and the result is written to every channel of the capture (a microphone's channels carry one
/// voice). The echo's delay is found by the library itself (delay-agnostic mode) from `delayMilliseconds` as a start.
///
/// Cost: about 0.1 ms of CPU per 10 ms block, 7 ms of delay; no heap allocation per frame (the mono buffers are
/// allocated once; the returned frame shares the output buffer, reused when the caller has let go of it).
/// Threading: not thread-safe; the session's media core owns it.
final class EchoCanceller {
    /// Why the canceller could not be made.
    enum Failure: Error, Equatable {
        /// Only 8, 16, 32 and 48 kHz, mono or stereo, are supported.
        case unsupportedFormat(AudioFormat)
        /// The library refused its settings.
        case creationFailed
    }

    /// The format both directions take.
    let format: AudioFormat
    /// The delay, in ms, from a frame given to ``played(_:)`` to its echo in a frame given to ``process(_:)``, as
    /// the library is told before refining it.
    let delayMilliseconds: Int
    /// Blocks the library refused (a bug if ever non-zero: the blocks are always 10 ms at the configured rate).
    private(set) var failures = 0

    private let state: OpaquePointer
    private var mono: [Int16]
    private var samples: [Int16] = []

    /// Creates a canceller with gain control and the high-pass filter on or off.
    init(format: AudioFormat, delayMilliseconds: Int = 60, gainControl: Bool = true, highPassFilter: Bool = true) throws(Failure) {
        guard [8_000, 16_000, 32_000, 48_000].contains(format.sampleRate), (1...2).contains(format.channels) else {
            throw .unsupportedFormat(format)
        }
        guard let state = carillon_audio_processing_create(Int32(format.sampleRate), 1, gainControl ? 1 : 0,
                                                           highPassFilter ? 1 : 0)
        else { throw .creationFailed }
        self.state = state
        self.format = format
        self.delayMilliseconds = delayMilliseconds
        mono = [Int16](repeating: 0, count: format.sampleRate / 100)
        samples.reserveCapacity(format.interleavedSampleCount(milliseconds: 60))
    }

    deinit { carillon_audio_processing_destroy(state) }

    /// Feeds what the session plays now; frames of another format, or not a whole number of 10 ms blocks, are skipped.
    func played(_ frame: AudioFrame) {
        guard frame.format == format, frame.frameCount % mono.count == 0 else { return }
        frame.samples.withUnsafeBufferPointer { pcm in
            for start in stride(from: 0, to: frame.frameCount, by: mono.count) {
                downmix(pcm, from: start)
                let result = mono.withUnsafeBufferPointer {
                    carillon_audio_processing_analyze_far_end(state, $0.baseAddress, Int32($0.count))
                }
                if result != 0 { failures += 1 }
            }
        }
    }

    /// The captured frame with the echo removed; frames it cannot take come back unchanged.
    func process(_ frame: AudioFrame) -> AudioFrame {
        guard frame.format == format, frame.frameCount > 0, frame.frameCount % mono.count == 0 else { return frame }
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: frame.samples)
        let channels = format.channels, block = mono.count
        samples.withUnsafeMutableBufferPointer { pcm in
            for start in stride(from: 0, to: frame.frameCount, by: block) {
                downmix(UnsafeBufferPointer(pcm), from: start)
                let result = mono.withUnsafeMutableBufferPointer {
                    carillon_audio_processing_process_near_end(state, $0.baseAddress, Int32(block), Int32(delayMilliseconds))
                }
                if result != 0 { failures += 1 }
                for index in 0..<block {
                    for channel in 0..<channels { pcm[(start + index) * channels + channel] = mono[index] }
                }
            }
        }
        return AudioFrame(format: format, samples: samples)
    }

    /// Averages the channels of one 10 ms block starting at sample frame `start` into ``mono``.
    private func downmix(_ pcm: UnsafeBufferPointer<Int16>, from start: Int) {
        let channels = format.channels
        for index in 0..<mono.count {
            var total = 0
            for channel in 0..<channels { total += Int(pcm[(start + index) * channels + channel]) }
            mono[index] = Int16(total / channels)
        }
    }
}
