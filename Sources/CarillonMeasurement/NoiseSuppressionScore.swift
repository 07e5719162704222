import CarillonCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a noise suppressor did to a ``SpeechCorpus`` clip: the noise removed in the pauses, the change of the
/// active speech level, and intelligibility (STOI) before and after; the figures the Voice Focus bars are set in.
///
/// The processed signal is aligned to the clean one first (``delay(of:corpus:maximumLagSeconds:)``), so a suppressor's
/// latency or a network's does not count.
///
/// Cost: dominated by the two STOI computations, tens of milliseconds per second of audio in a debug build.
/// Threading: a value.
public struct NoiseSuppressionScore: Sendable {
    /// How many dB less noise energy the processed signal has than the noisy one in the corpus's pauses.
    public let noiseRemovedInPausesDB: Double
    /// The processed signal's level over active speech minus the clean speech's, in dB (0 is ideal).
    public let speechLevelChangeDB: Double
    /// STOI of the noisy input against the clean speech.
    public let noisyIntelligibility: Double
    /// STOI of the processed signal against the clean speech.
    public let processedIntelligibility: Double
    /// How late the processed signal was, in samples.
    public let delay: Int

    /// Scores `processed` (what the suppressor made of `noisy`, which is aligned with the corpus).
    public init(corpus: SpeechCorpus, noisy: [Int16], processed: [Int16]) {
        let delay = Self.delay(of: processed, corpus: corpus)
        let aligned = Array(processed.dropFirst(delay)) + [Int16](repeating: 0, count: min(delay, processed.count))
        self.delay = delay
        noiseRemovedInPausesDB = Self.pauseLevelDB(noisy, corpus: corpus, delay: 0)
            - Self.pauseLevelDB(processed, corpus: corpus, delay: delay)
        let active = Self.activeSpeechBlocks(corpus)
        var cleanEnergy = 0.0, processedEnergy = 0.0
        for block in active {
            for index in block {
                cleanEnergy += corpus.clean[index] * corpus.clean[index]
                processedEnergy += Double(aligned[index]) * Double(aligned[index])
            }
        }
        speechLevelChangeDB = 10 * log10(max(processedEnergy, 1e-12) / max(cleanEnergy, 1e-12))
        let clean = corpus.cleanSamples
        noisyIntelligibility = SpeechIntelligibility.shortTimeObjectiveIntelligibility(
            clean: clean, processed: noisy, sampleRate: SpeechCorpus.sampleRate) ?? 0
        processedIntelligibility = SpeechIntelligibility.shortTimeObjectiveIntelligibility(
            clean: clean, processed: aligned, sampleRate: SpeechCorpus.sampleRate) ?? 0
    }

    /// The RMS level of `signal` over the corpus's pauses, in dB relative to full scale, when `signal` lags the corpus
    /// by `delay` samples: what "noise in the pauses" means in every Voice Focus figure. For audio that went through
    /// a network, whose timeline is not kept, see ``HeardCorpusLevels``.
    public static func pauseLevelDB(_ signal: [Int16], corpus: SpeechCorpus, delay: Int) -> Double {
        var energy = 0.0, count = 0
        for pause in corpus.pauses {
            for index in pause where index + delay < signal.count {
                energy += Double(signal[index + delay]) * Double(signal[index + delay])
                count += 1
            }
        }
        guard count > 0, energy > 0 else { return AudioLevel.silenceDBov }
        return 10 * log10(energy / Double(count) / (Double(Int16.max) * Double(Int16.max)))
    }

    /// The RMS of each `block` samples, less the mean: a level envelope for correlating.
    static func envelope(_ values: some Collection<Double>, block: Int) -> [Double] {
        let blocks = values.count / block
        var result = [Double](repeating: 0, count: blocks)
        var iterator = values.makeIterator()
        for index in 0..<blocks {
            var energy = 0.0
            for _ in 0..<block { let value = iterator.next() ?? 0; energy += value * value }
            result[index] = energy.squareRoot()
        }
        let mean = result.reduce(0, +) / Double(max(1, blocks))
        return result.map { $0 - mean }
    }

    /// How many samples `signal` lags the corpus's clean speech (`minimumLagSeconds` up to `maximumLagSeconds`): the
    /// lag that best correlates their 1 ms level envelopes, refined to the sample.
    public static func delay(of signal: [Int16], corpus: SpeechCorpus, minimumLagSeconds: Double = 0,
                             maximumLagSeconds: Double = 1) -> Int {
        let block = SpeechCorpus.sampleRate / 1000
        let clean = envelope(corpus.clean, block: block)
        let other = envelope(signal.lazy.map(Double.init), block: block)
        let maximumBlocks = Int(maximumLagSeconds * 1000)
        let minimumBlocks = min(maximumBlocks, max(0, Int(minimumLagSeconds * 1000)))
        var best = (lag: minimumBlocks, score: -Double.infinity)
        for lag in minimumBlocks...maximumBlocks where lag < other.count {
            var score = 0.0
            for index in 0..<min(clean.count, other.count - lag) { score += clean[index] * other[index + lag] }
            if score > best.score { best = (lag, score) }
        }
        // Refine within ±1 block on the samples themselves, over the first phrases (enough to find the peak).
        var refined = (lag: best.lag * block, score: -Double.infinity)
        for lag in max(0, (best.lag - 1) * block)...((best.lag + 1) * block) {
            var score = 0.0
            for phrase in corpus.phrases.prefix(3) {
                for index in phrase where index + lag < signal.count { score += corpus.clean[index] * Double(signal[index + lag]) }
            }
            if score > refined.score { refined = (lag, score) }
        }
        return refined.lag
    }

    /// The 10 ms blocks of the phrases whose clean level is within 10 dB of the active speech level: where speech
    /// dominates, so its level is what is measured.
    static func activeSpeechBlocks(_ corpus: SpeechCorpus) -> [Range<Int>] {
        let block = SpeechCorpus.sampleRate / 100
        let threshold = pow(10, (SpeechCorpus.speechLevelDBFS - 10) / 10) * Double(Int16.max) * Double(Int16.max)
        var blocks: [Range<Int>] = []
        for phrase in corpus.phrases {
            for start in stride(from: phrase.lowerBound, to: phrase.upperBound - block, by: block) {
                let range = start..<start + block
                let power = range.reduce(0.0) { $0 + corpus.clean[$1] * corpus.clean[$1] } / Double(block)
                if power >= threshold { blocks.append(range) }
            }
        }
        return blocks
    }
}
