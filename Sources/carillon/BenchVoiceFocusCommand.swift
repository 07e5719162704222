import ArgumentParser
import Carillon
import CarillonCodecs
import CarillonMeasurement
import CarillonRTC
import Foundation

extension BenchCommand {
    /// Voice Focus on the generated corpus: what RNNoise removes and keeps, per noise and SNR, and what it costs.
    struct VoiceFocus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "voice-focus",
            abstract: "Voice Focus (RNNoise) on the seeded speech corpus: noise removed in pauses, speech level change, STOI and CPU per 10 ms frame, per noise and SNR."
        )
        @Option(help: "Seconds of speech per clip.") var seconds = 10.0
        @Option(help: "Seed of the corpus and its noises.") var seed: UInt64 = 13
        @Option(help: "SNRs in dB, comma-separated.") var snr = "0,5,10"
        @Option(name: .customLong("corpus-directory"),
                help: "Also write clean.wav and each clip's NOISE-SNR-noisy.wav and NOISE-SNR-processed.wav (48 kHz mono) here.")
        var corpusDirectory: String?

        func validate() throws {
            guard seconds >= 3, seconds <= 600 else { throw ValidationError("--seconds must be 3...600") }
            guard !snrs.isEmpty else { throw ValidationError("--snr must list numbers, e.g. 0,5,10") }
        }

        private var snrs: [Double] { snr.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }

        func run() throws {
            let library: RNNoiseLibrary
            do { library = try RNNoiseLibrary.shared.get() } catch {
                throw ValidationError("Voice Focus is unavailable: \(error)")
            }
            var random = SeededRandom(seed: seed)
            let corpus = SpeechCorpus(seconds: seconds, using: &random)
            if let corpusDirectory {
                try FileManager.default.createDirectory(atPath: corpusDirectory, withIntermediateDirectories: true)
                try WAVFile.write(format: .mono48k, samples: corpus.cleanSamples, to: "\(corpusDirectory)/clean.wav")
            }
            StandardOutput.line("RNNoise from \(library.path) (model: \(library.weightsPath ?? "built in")); corpus: \(String(format: "%.0f", seconds)) s of synthetic speech, seed \(seed), \(corpus.phrases.count) phrases")
            StandardOutput.line("noise         SNR     removed in pauses  speech level change  STOI noisy -> processed  CPU per 10 ms frame")
            for noise in CorpusNoise.allCases {
                var noiseRandom = SeededRandom(seed: seed &+ UInt64(noise.rawValue.utf8.count))
                let samples = corpus.noise(noise, using: &noiseRandom)
                for snr in snrs {
                    let noisy = corpus.noisy(samples, snrDB: snr)
                    let (processed, cpuPerBlock) = try Self.suppressed(noisy, library: library)
                    let score = NoiseSuppressionScore(corpus: corpus, noisy: noisy, processed: processed)
                    if let corpusDirectory {
                        let stem = "\(corpusDirectory)/\(noise.rawValue)-\(String(format: "%g", snr))"
                        try WAVFile.write(format: .mono48k, samples: noisy, to: "\(stem)-noisy.wav")
                        try WAVFile.write(format: .mono48k, samples: Array(processed.dropFirst(score.delay)), to: "\(stem)-processed.wav")
                    }
                    StandardOutput.line(noise.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) + String(
                        format: " %4.0f dB  %8.1f dB         %+6.2f dB            %.3f -> %.3f (%+.3f)   %4.0f µs (%.1f %% of a core)",
                        snr, score.noiseRemovedInPausesDB, score.speechLevelChangeDB, score.noisyIntelligibility,
                        score.processedIntelligibility, score.processedIntelligibility - score.noisyIntelligibility,
                        cpuPerBlock * 1e6, cpuPerBlock / 0.01 * 100))
                }
            }
            // RNNoise's cost depends on its input: timed here on the inputs the session benches send, so the CPU a
            // session adds (`bench client-cpu --voice-focus`, which sends a tone) can be checked against the suppressor.
            var tone = ToneGenerator(frequency: 440, amplitude: VirtualAudioDevices.toneAmplitude)
            let inputs: [(String, [Int16])] = [
                ("the 440 Hz tone `bench client-cpu` sends", tone.next(sampleFrames: corpus.clean.count).samples),
                ("the clean speech", corpus.cleanSamples),
                ("digital silence", [Int16](repeating: 0, count: corpus.clean.count)),
            ]
            for (name, samples) in inputs {
                let cpuPerBlock = try Self.suppressed(samples, library: library).cpuPerBlock
                StandardOutput.line(String(format: "CPU per 10 ms frame on %@: %4.0f µs (%.1f %% of a core)",
                                           name, cpuPerBlock * 1e6, cpuPerBlock / 0.01 * 100))
            }
        }

        /// Runs `samples` through a new suppressor 20 ms at a time, as the send pipeline does; returns the output and
        /// the process CPU time per 10 ms block (RNNoise's unit).
        private static func suppressed(_ samples: [Int16], library: RNNoiseLibrary) throws -> (samples: [Int16], cpuPerBlock: Double) {
            let suppressor = try NoiseSuppressor(library: library, format: .mono48k)
            var processed: [Int16] = []
            processed.reserveCapacity(samples.count)
            let frames = samples.count / 960
            let cpuStart = processCPUSeconds()
            for index in 0..<frames {
                let frame = AudioFrame(format: .mono48k, samples: Array(samples[index * 960..<(index + 1) * 960]))
                processed += suppressor.process(frame).samples
            }
            return (processed, (processCPUSeconds() - cpuStart) / Double(frames * 2))
        }

        /// CPU time of this process, to the nanosecond (the suppressor runs on this thread only).
        private static func processCPUSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
    }
}
