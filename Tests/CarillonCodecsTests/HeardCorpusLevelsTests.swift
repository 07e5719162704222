import CarillonCodecs
import CarillonMeasurement
import Testing

/// The corpus measured through a simulated network path: per-phrase lags, and pauses measured only where the
/// timeline around them is known.
@Suite struct HeardCorpusLevelsTests {
    /// 16 s of speech with pink noise at 5 dB SNR, heard 700 ms late; `gap` samples of silence inserted in the middle
    /// of the second pause between phrases (a skipped stretch), `dropped` samples taken out of the middle of the
    /// third phrase (the jitter buffer dropping a frame).
    static func heard(gap: Int, dropped: Int, clean: Bool = false)
        -> (corpus: SpeechCorpus, noisy: [Int16], recording: [Int16], gapPause: Int, dropPhrase: Int) {
        var random = SeededGenerator(seed: 41)
        let corpus = SpeechCorpus(seconds: 16, using: &random)
        let noisy = clean ? corpus.cleanSamples : corpus.noisy(corpus.noise(.pink, using: &random), snrDB: 5)
        let gapPause = 2, dropPhrase = 3  // pauses[0] is the leading one: pauses[2] lies between phrases 1 and 2
        let gapAt = (corpus.pauses[gapPause].lowerBound + corpus.pauses[gapPause].upperBound) / 2
        let dropAt = (corpus.phrases[dropPhrase].lowerBound + corpus.phrases[dropPhrase].upperBound) / 2
        var recording = [Int16](repeating: 0, count: 33_600)
        recording += noisy[..<gapAt]
        recording += [Int16](repeating: 0, count: gap)
        recording += noisy[gapAt..<dropAt]
        recording += noisy[(dropAt + dropped)...]
        recording += [Int16](repeating: 0, count: 48_000)
        return (corpus, noisy, recording, gapPause, dropPhrase)
    }

    @Test func eachPhraseIsFoundAtItsOwnLag() {
        let (corpus, _, recording, _, dropPhrase) = Self.heard(gap: 24_960, dropped: 960)
        let levels = HeardCorpusLevels(recording, corpus: corpus, delay: 33_600)
        // Phrases 0-1 before the gap, 2 after it; phrase 3 holds the dropped frame (either lag is right for part of
        // it); the ones after it are 20 ms earlier.
        #expect(Array(levels.phraseLags[..<2]) == [33_600, 33_600])
        #expect(levels.phraseLags[2] == 33_600 + 24_960)
        #expect([33_600 + 24_960, 33_600 + 24_960 - 960].contains(levels.phraseLags[dropPhrase]))
        #expect(levels.phraseLags[(dropPhrase + 1)...].allSatisfy { $0 == 33_600 + 24_960 - 960 }, "\(levels.phraseLags)")
    }

    @Test func aPauseWithAJumpInItIsLeftOutAndTheOthersMeasureTheNoise() {
        let (corpus, noisy, recording, _, _) = Self.heard(gap: 24_960, dropped: 960)
        let levels = HeardCorpusLevels(recording, corpus: corpus, delay: 33_600)
        // Left out: the leading and trailing pauses and the one holding the 520 ms gap; a 20 ms drop is within the
        // margin, so the pauses beside that phrase are measured.
        #expect(corpus.pauses.count >= 6, "\(corpus.pauses.count) pauses")
        #expect(levels.skippedPauses == 3)
        #expect(levels.measuredPauses == corpus.pauses.count - 3)
        // The silence of the gap is not measured: the level is the noise's own (the whole clip's pauses, aligned).
        let noise = NoiseSuppressionScore.pauseLevelDB(noisy, corpus: corpus, delay: 0)
        #expect(abs(levels.pauseLevelDB - noise) < 0.5, "\(levels.pauseLevelDB) dBFS heard, \(noise) dBFS sent")
    }

    @Test func aShortGapInAPauseIsMeasuredAsNoiseAndSilence() {
        // 40 ms of silence inside a pause is within the margin, so that pause is measured, silence and all: the
        // measurement can only leave out what it cannot place, it does not clean what it measures.
        let (corpus, _, recording, _, _) = Self.heard(gap: 1_920, dropped: 0)
        let levels = HeardCorpusLevels(recording, corpus: corpus, delay: 33_600)
        #expect(levels.skippedPauses == 2)
    }

    @Test func speechIsMeasuredWherePhrasesAreHeard() {
        let (corpus, _, recording, _, _) = Self.heard(gap: 24_960, dropped: 960, clean: true)
        let levels = HeardCorpusLevels(recording, corpus: corpus, delay: 33_600)
        #expect(abs(levels.speechLevelDB - SpeechCorpus.speechLevelDBFS) < 0.3, "\(levels.speechLevelDB) dBFS")
        #expect(levels.pauseLevelDB == AudioLevel.silenceDBov)
    }
}
