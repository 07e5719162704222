import CarillonCodecs

/// A virtual microphone playing a WAV file, converted to the session's format (resampled, downmixed or upmixed) as it
/// goes.
///
/// With `loops` the file starts again after its end, seamlessly; without, the source continues with silence after the
/// end (``isFinished`` tells) so the session keeps running. A value type owned by the session's media loop.
struct WAVFileAudioSource: AudioInputSource {
    let format: AudioFormat
    /// Whether the file starts again at its end.
    let loops: Bool
    private let contents: WAVFileContents
    private var converter: AudioResampler?
    private var position = 0
    private var pending: [Int16] = []
    /// Whether the file has played to its end (never true when looping, unless the file is empty).
    private(set) var isFinished = false

    /// Opens a source over `contents` producing `format`; throws when the formats cannot be converted.
    init(contents: WAVFileContents, loops: Bool, format: AudioFormat) throws(AudioFrameError) {
        self.contents = contents
        self.loops = loops
        self.format = format
        converter = contents.format == format ? nil : try AudioResampler(from: contents.format, to: format)
        isFinished = contents.samples.isEmpty
    }

    mutating func read(frameMilliseconds: Int) -> AudioFrame {
        let needed = format.interleavedSampleCount(milliseconds: frameMilliseconds)
        // Convert the file in 20 ms steps until a whole output frame is ready (rates where 20 ms is not a whole
        // number of samples give uneven steps, hence the queue).
        let step = max(1, contents.format.samplesPerFrame(milliseconds: 20)) * contents.format.channels
        while pending.count < needed {
            let chunk = AudioFrame(format: contents.format, samples: nextFileSamples(count: step))
            pending += converter?.process(chunk).samples ?? chunk.samples
        }
        let frame = AudioFrame(format: format, samples: Array(pending[0..<needed]))
        pending.removeFirst(needed)
        return frame
    }

    /// `count` interleaved samples from the file, wrapping when looping, zeros after the end otherwise.
    private mutating func nextFileSamples(count: Int) -> [Int16] {
        var chunk: [Int16] = []
        chunk.reserveCapacity(count)
        let samples = contents.samples
        while chunk.count < count {
            guard !isFinished else {
                chunk += repeatElement(0, count: count - chunk.count)
                break
            }
            let take = min(count - chunk.count, samples.count - position)
            chunk += samples[position..<(position + take)]
            position += take
            if position == samples.count {
                if loops { position = 0 } else { isFinished = true }
            }
        }
        return chunk
    }
}
