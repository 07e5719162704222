import CarillonCodecs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The levels of a ``SpeechCorpus`` clip as a listener heard it through a network: the noise in the pauses and the
/// speech in the phrases, each measured only where the recording's timeline is known.
///
/// A network path does not keep the clip's timeline: the jitter buffer adds and drops 20 ms frames, and a sender or
/// mixer that falls more than 500 ms behind skips what it missed (``MediaFrameClock``), so the recording jumps by
/// hundreds of milliseconds at unknown places. A single delay then puts the later pauses on speech or on the
/// silence a skip left. So each phrase is located on its own (its 1 ms level envelope correlated with the clean
/// one, searched from the previous phrase's lag), and a pause between two phrases is measured only when both
/// phrases sit at the same lag within ``SpeechCorpus/pauseMargin``: then nothing was added or dropped inside it
/// beyond what that margin absorbs. Pauses whose ends disagree, and the leading and trailing pauses (which have
/// one phrase to check against), are counted in ``skippedPauses`` and left out, never measured at a guessed place.
///
/// Cost: one envelope correlation per phrase over a 1.5 s window, a few tens of milliseconds per second of audio in
/// a debug build. Threading: a value.
public struct HeardCorpusLevels: Sendable {
    /// The RMS level over the measured pauses, dBFS (``AudioLevel/silenceDBov`` when none was measured).
    public let pauseLevelDB: Double
    /// How many pauses between two phrases were measured.
    public let measuredPauses: Int
    /// How many of the corpus's pauses were left out because the timeline around them is not known.
    public let skippedPauses: Int
    /// The RMS level over the phrases, each at its own lag, dBFS.
    public let speechLevelDB: Double
    /// Where each phrase was found: how many samples the recording lags the corpus there.
    public let phraseLags: [Int]

    /// How far before the previous phrase's lag a phrase is searched (the jitter buffer catching up), in ms.
    static let earlierSearchMilliseconds = 300
    /// How far after it (skips and a buffer growing), in ms: under a phrase plus a pause, so a phrase is never
    /// matched to its neighbour.
    static let laterSearchMilliseconds = 1_200

    /// Measures `signal`, a recording that holds the corpus's clip starting about `delay` samples in.
    public init(_ signal: [Int16], corpus: SpeechCorpus, delay: Int) {
        let block = SpeechCorpus.sampleRate / 1000
        let cleanEnvelope = NoiseSuppressionScore.envelope(corpus.clean, block: block)
        let signalEnvelope = NoiseSuppressionScore.envelope(signal.lazy.map(Double.init), block: block)
        var lags: [Int] = []
        var current = delay / block
        for phrase in corpus.phrases {
            let blocks = (phrase.lowerBound / block)..<(phrase.upperBound / block)
            var best = (lag: current, score: -Double.infinity)
            for lag in max(0, current - Self.earlierSearchMilliseconds)...(current + Self.laterSearchMilliseconds) {
                var score = 0.0
                for index in blocks where index + lag < signalEnvelope.count {
                    score += cleanEnvelope[index] * signalEnvelope[index + lag]
                }
                if score > best.score { best = (lag, score) }
            }
            current = best.lag
            lags.append(best.lag * block)
        }
        phraseLags = lags

        var energy = 0.0, count = 0, measured = 0
        for pause in corpus.pauses {
            guard let before = corpus.phrases.lastIndex(where: { $0.upperBound <= pause.lowerBound }),
                  before + 1 < corpus.phrases.count,
                  abs(lags[before + 1] - lags[before]) <= SpeechCorpus.pauseMargin else { continue }
            // From the end of the phrase before as heard to the start of the one after as heard, less the margins.
            let start = pause.lowerBound + lags[before] + SpeechCorpus.pauseMargin
            let end = min(pause.upperBound + lags[before + 1] - SpeechCorpus.pauseMargin, signal.count)
            guard end > start else { continue }
            for index in start..<end { energy += Double(signal[index]) * Double(signal[index]) }
            count += end - start
            measured += 1
        }
        measuredPauses = measured
        skippedPauses = corpus.pauses.count - measured
        pauseLevelDB = Self.levelDB(energy: energy, count: count)

        var speechEnergy = 0.0, speechCount = 0
        for (phrase, lag) in zip(corpus.phrases, lags) {
            for index in phrase where index + lag < signal.count {
                speechEnergy += Double(signal[index + lag]) * Double(signal[index + lag])
                speechCount += 1
            }
        }
        speechLevelDB = Self.levelDB(energy: speechEnergy, count: speechCount)
    }

    private static func levelDB(energy: Double, count: Int) -> Double {
        guard count > 0, energy > 0 else { return AudioLevel.silenceDBov }
        return 10 * log10(energy / Double(count) / (Double(Int16.max) * Double(Int16.max)))
    }
}
