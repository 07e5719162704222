import CarillonCodecs

/// The audio of a WAV file, read once when a WAV input is registered and shared by every session that opens it.
///
/// Files with more than two channels are downmixed to mono here, because ``AudioResampler`` takes mono and stereo.
/// Immutable, safe to share.
final class WAVFileContents: Sendable {
    /// Mono or stereo, at the file's rate.
    let format: AudioFormat
    /// Interleaved samples in ``format``.
    let samples: [Int16]

    /// Reads `path`; throws what ``WAVFile/read(contentsOf:)`` throws.
    init(path: String) throws(WAVError) {
        let file = try WAVFile.read(contentsOf: path)
        guard file.format.channels > 2 else {
            format = file.format
            samples = file.samples
            return
        }
        let channels = file.format.channels
        var mono = [Int16](repeating: 0, count: file.samples.count / channels)
        for index in mono.indices {
            var sum = 0
            for channel in 0..<channels { sum += Int(file.samples[index * channels + channel]) }
            mono[index] = Int16(sum / channels)
        }
        format = AudioFormat(sampleRate: file.format.sampleRate, channels: 1)
        samples = mono
    }
}
