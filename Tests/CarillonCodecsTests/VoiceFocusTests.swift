import CarillonCodecs
import CarillonMeasurement
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Voice Focus's bars on the seeded corpus: noise removed in pauses, speech level kept, intelligibility not lowered.
@Suite struct VoiceFocusTests {
    static let library = try? RNNoiseLibrary.shared.get()
    static let skipReason: Comment = "RNNoise is not installed (`make rnnoise` puts it in .deps/rnnoise, or set CARILLON_RNNOISE_LIBRARY)"

    /// What each noise must lose in the pauses at 5 dB SNR (the issue's bars).
    static let bars: [(CorpusNoise, Double)] = [(.pink, 20), (.fan, 20), (.keyboard, 15), (.fanAndKeyboard, 15)]

    /// Runs the corpus through a suppressor 20 ms at a time, as the send pipeline does.
    static func suppressed(_ samples: [Int16], library: RNNoiseLibrary) throws -> [Int16] {
        let suppressor = try NoiseSuppressor(library: library, format: .mono48k)
        var output: [Int16] = []
        output.reserveCapacity(samples.count)
        for start in stride(from: 0, to: samples.count - 959, by: 960) {
            output += suppressor.process(AudioFrame(format: .mono48k, samples: Array(samples[start..<start + 960]))).samples
        }
        return output
    }

    @Test(.enabled(if: library != nil, skipReason), arguments: bars)
    func meetsTheBarsAtFiveDBSNR(noise: CorpusNoise, bar: Double) throws {
        let library = try #require(Self.library)
        var random = SeededGenerator(seed: 13)
        let corpus = SpeechCorpus(seconds: 8, using: &random)
        let noisy = corpus.noisy(corpus.noise(noise, using: &random), snrDB: 5)
        let score = NoiseSuppressionScore(corpus: corpus, noisy: noisy, processed: try Self.suppressed(noisy, library: library))
        #expect(score.noiseRemovedInPausesDB >= bar, "\(noise): \(score.noiseRemovedInPausesDB) dB removed in pauses")
        #expect(abs(score.speechLevelChangeDB) <= 1, "\(noise): speech level changed by \(score.speechLevelChangeDB) dB")
        #expect(score.processedIntelligibility >= score.noisyIntelligibility,
                "\(noise): STOI \(score.noisyIntelligibility) -> \(score.processedIntelligibility)")
    }

    /// A session turns Voice Focus on whenever the app asks, often while the microphone gives digital silence (a
    /// virtual device, a muted input): the speech after it must come through, in mono and stereo.
    @Test(.enabled(if: library != nil, skipReason), arguments: [AudioFormat.mono48k, .stereo48k])
    func speechAfterSecondsOfDigitalSilenceComesThrough(format: AudioFormat) throws {
        let library = try #require(Self.library)
        var random = SeededGenerator(seed: 31)
        let corpus = SpeechCorpus(seconds: 6, using: &random)
        let noisy = corpus.noisy(corpus.noise(.keyboard, using: &random), snrDB: 5)
        let suppressor = try NoiseSuppressor(library: library, format: format)
        let frame = format.interleavedSampleCount(milliseconds: 20)
        for _ in 0..<150 { _ = suppressor.process(AudioFrame(format: format, samples: [Int16](repeating: 0, count: frame))) }
        var output: [Int16] = []
        for start in stride(from: 0, to: noisy.count - 959, by: 960) {
            let mono = Array(noisy[start..<start + 960])
            let samples = format.channels == 1 ? mono : mono.flatMap { [$0, $0] }
            let processed = suppressor.process(AudioFrame(format: format, samples: samples)).samples
            output += format.channels == 1 ? processed : stride(from: 0, to: processed.count, by: 2).map { processed[$0] }
        }
        let score = NoiseSuppressionScore(corpus: corpus, noisy: noisy, processed: output)
        #expect(abs(score.speechLevelChangeDB) <= 1, "\(format.channels) channels: speech level changed by \(score.speechLevelChangeDB) dB")
        #expect(score.noiseRemovedInPausesDB >= 15, "\(format.channels) channels: \(score.noiseRemovedInPausesDB) dB removed")
    }

    @Test(.enabled(if: library != nil, skipReason))
    func cleanSpeechPassesAtItsLevel() throws {
        let library = try #require(Self.library)
        var random = SeededGenerator(seed: 7)
        let corpus = SpeechCorpus(seconds: 6, using: &random)
        let clean = corpus.cleanSamples
        let score = NoiseSuppressionScore(corpus: corpus, noisy: clean, processed: try Self.suppressed(clean, library: library))
        #expect(abs(score.speechLevelChangeDB) <= 1, "\(score.speechLevelChangeDB) dB")
        #expect(score.processedIntelligibility > 0.9, "STOI \(score.processedIntelligibility)")
    }

    @Test(.enabled(if: library != nil, skipReason))
    func framesItCannotTakePassUnchanged() throws {
        let library = try #require(Self.library)
        #expect(throws: NoiseSuppressorError.unsupportedFormat(.mono16k)) { try NoiseSuppressor(library: library, format: .mono16k) }
        let suppressor = try NoiseSuppressor(library: library, format: .stereo48k)
        let odd = AudioFrame(format: .stereo48k, samples: (0..<700).map { Int16($0) })
        #expect(suppressor.process(odd) == odd)
        let mono = AudioFrame(format: .mono48k, samples: [Int16](repeating: 100, count: 960))
        #expect(suppressor.process(mono) == mono)
        #expect(suppressor.process(AudioFrame.silence(format: .stereo48k, milliseconds: 20)).frameCount == 960)
    }

    @Test func aMissingLibraryIsATypedErrorNamingWhatWasTried() {
        #expect(throws: NoiseSuppressorError.libraryNotFound(tried: [])) { try RNNoiseLibrary(candidates: []) }
        do {
            _ = try RNNoiseLibrary(candidates: ["/nonexistent/librnnoise.so"])
            Issue.record("loaded a library that does not exist")
        } catch {
            guard case .libraryNotFound(let tried) = error else { Issue.record("\(error)"); return }
            #expect(tried.count == 1 && tried[0].hasPrefix("/nonexistent/librnnoise.so:"), "\(tried)")
        }
    }

    /// The weights file next to the library decides the model: none, the built-in one; one RNNoise cannot parse, a typed
    /// error naming it; the one `make rnnoise` writes, states that run on it.
    @Test(.enabled(if: library != nil, skipReason))
    func aWeightsFileNextToTheLibraryIsLoadedOrRejected() throws {
        let installed = try #require(Self.library)
        var template = Array("/tmp/carillon-rnnoise-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        let library = directory + "/librnnoise.so", weights = directory + "/" + RNNoiseLibrary.weightsFileName
        defer {
            unlink(weights)
            unlink(library)
            rmdir(directory)
        }
        #expect(symlink(installed.path, library) == 0)
        #expect(try RNNoiseLibrary(candidates: [library]).weightsPath == nil)

        let garbage = try #require(fopen(weights, "wb"))
        fwrite([UInt8](repeating: 0, count: 128), 1, 128, garbage)
        fclose(garbage)
        #expect(throws: NoiseSuppressorError.weightsRejected(weights)) { try RNNoiseLibrary(candidates: [library]) }

        let installedWeights = try #require(installed.weightsPath, "`make rnnoise` writes \(RNNoiseLibrary.weightsFileName)")
        unlink(weights)
        #expect(symlink(installedWeights, weights) == 0)
        let loaded = try RNNoiseLibrary(candidates: [library])
        #expect(loaded.weightsPath == weights)
        var random = SeededGenerator(seed: 13)
        let corpus = SpeechCorpus(seconds: 4, using: &random)
        let noisy = corpus.noisy(corpus.noise(.pink, using: &random), snrDB: 5)
        let score = NoiseSuppressionScore(corpus: corpus, noisy: noisy, processed: try Self.suppressed(noisy, library: loaded))
        #expect(score.noiseRemovedInPausesDB >= 20, "\(score.noiseRemovedInPausesDB) dB removed in pauses")
    }

    @Test func theCorpusIsSeededAndItsPausesAreSilent() {
        var first = SeededGenerator(seed: 1), second = SeededGenerator(seed: 1), other = SeededGenerator(seed: 2)
        let corpus = SpeechCorpus(seconds: 6, using: &first)
        #expect(corpus.cleanSamples == SpeechCorpus(seconds: 6, using: &second).cleanSamples)
        #expect(corpus.cleanSamples != SpeechCorpus(seconds: 6, using: &other).cleanSamples)
        #expect(corpus.phrases.count >= 2 && corpus.pauses.count >= 3, "\(corpus.phrases) \(corpus.pauses)")
        #expect(NoiseSuppressionScore.pauseLevelDB(corpus.cleanSamples, corpus: corpus, delay: 0) == AudioLevel.silenceDBov)
        let speech = corpus.phrases.flatMap { corpus.cleanSamples[$0] }
        #expect(abs(AudioLevel.rmsDBov(speech) - SpeechCorpus.speechLevelDBFS) < 0.1, "\(AudioLevel.rmsDBov(speech))")
        for noise in CorpusNoise.allCases {
            var random = SeededGenerator(seed: 3)
            let noisy = corpus.noisy(corpus.noise(noise, using: &random), snrDB: 5)
            let whole = AudioLevel.rmsDBov(corpus.cleanSamples)
            let noiseLevel = AudioLevel.rmsDBov(zip(noisy, corpus.cleanSamples).map { $0 &- $1 })
            #expect(abs(whole - noiseLevel - 5) < 0.2, "\(noise): SNR \(whole - noiseLevel) dB")
        }
    }

    @Test func theAlignmentFindsAKnownDelay() {
        var random = SeededGenerator(seed: 5)
        let corpus = SpeechCorpus(seconds: 5, using: &random)
        let delayed = [Int16](repeating: 0, count: 1_234) + corpus.cleanSamples
        #expect(NoiseSuppressionScore.delay(of: delayed, corpus: corpus) == 1_234)
        #expect(NoiseSuppressionScore.delay(of: corpus.cleanSamples, corpus: corpus) == 0)
    }

    @Test func intelligibilityRanksCleanOverNoisyOverNoise() throws {
        var random = SeededGenerator(seed: 9)
        let corpus = SpeechCorpus(seconds: 5, using: &random)
        let clean = corpus.cleanSamples
        let noise = corpus.noise(.pink, using: &random)
        func stoi(_ processed: [Int16]) throws -> Double {
            try #require(SpeechIntelligibility.shortTimeObjectiveIntelligibility(clean: clean, processed: processed, sampleRate: 48_000))
        }
        let identical = try stoi(clean)
        let tenDB = try stoi(corpus.noisy(noise, snrDB: 10))
        let zeroDB = try stoi(corpus.noisy(noise, snrDB: 0))
        let noiseOnly = try stoi(corpus.noisy(noise, snrDB: -40))
        #expect(abs(identical - 1) < 1e-6, "\(identical)")
        #expect(identical > tenDB && tenDB > zeroDB && zeroDB > noiseOnly, "\(identical) \(tenDB) \(zeroDB) \(noiseOnly)")
        #expect(noiseOnly < 0.3, "\(noiseOnly)")
        #expect(SpeechIntelligibility.shortTimeObjectiveIntelligibility(clean: Array(clean.prefix(4_800)), processed: clean, sampleRate: 48_000) == nil)
    }

    @Test func theFourierTransformMatchesTheDefinition() {
        var random = SeededGenerator(seed: 11)
        let signal = (0..<64).map { _ in Double.random(in: -1...1, using: &random) }
        let fast = FourierTransform(size: 64).powerSpectrum(signal)
        for bin in 0...32 {
            var real = 0.0, imaginary = 0.0
            for (index, value) in signal.enumerated() {
                let angle = -2 * Double.pi * Double(bin * index) / 64
                real += value * cos(angle)
                imaginary += value * sin(angle)
            }
            #expect(abs(fast[bin] - (real * real + imaginary * imaginary)) < 1e-9, "bin \(bin)")
        }
    }
}
