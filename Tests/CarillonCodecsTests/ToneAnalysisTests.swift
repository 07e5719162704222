import CarillonCodecs
import Testing

/// The tone generator and the Goertzel measurements the end-to-end tests rely on.
@Suite struct ToneAnalysisTests {
    @Test func toneIsPhaseContinuousAcrossFrames() {
        var framed = ToneGenerator(frequency: 441.3, amplitude: 0.7, format: .stereo48k)
        var whole = ToneGenerator(frequency: 441.3, amplitude: 0.7, format: .stereo48k)
        let pieces = (0..<50).flatMap { _ in framed.next(milliseconds: 20).samples }
        #expect(pieces == whole.next(milliseconds: 1000).samples)
        let left = TestSignals.channel(pieces, 0, of: 2)
        #expect(left == TestSignals.channel(pieces, 1, of: 2))
        #expect(abs(Int(left.max() ?? 0) - 22_937) <= 2)
    }

    @Test func goertzelMeasuresAmplitude() {
        var tone = ToneGenerator(frequency: 1000, amplitude: 0.5, format: .mono16k)
        let samples = tone.next(milliseconds: 200).samples
        let power = FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: 16_000, frequency: 1000)
        #expect(abs(power - 0.25) < 0.01, "\(power)")
        #expect(FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: 16_000, frequency: 3000) < 1e-6)
        #expect(abs(FrequencyAnalysis.powerShareDB(samples: samples, sampleRate: 16_000, frequency: 1000)) < 0.2)
        #expect(FrequencyAnalysis.goertzelPower(samples: [Int16](), sampleRate: 16_000, frequency: 1000) == 0)
    }

    @Test func findsTonesInAMixAndNotOthers() throws {
        var low = ToneGenerator(frequency: 440, amplitude: 0.3, format: .mono48k)
        var high = ToneGenerator(frequency: 1200, amplitude: 0.1, format: .mono48k)
        let mix = try AudioFrame.mix([low.next(milliseconds: 500), high.next(milliseconds: 500)])
        let candidates: [Double] = [440, 700, 1200, 2000]
        #expect(FrequencyAnalysis.dominantFrequency(mix, candidates: candidates) == 440)
        #expect(FrequencyAnalysis.dominantFrequency(mix, candidates: [700, 1200, 2000]) == 1200)
        let ratio = FrequencyAnalysis.relativePowerDB(samples: mix.samples, sampleRate: 48_000, frequency: 440, reference: 1200)
        #expect(abs(ratio - 9.54) < 0.2, "\(ratio) dB")
        #expect(FrequencyAnalysis.dominanceDB(samples: mix.samples, sampleRate: 48_000, frequency: 1200, over: [700, 2000]) > 60)
        #expect(FrequencyAnalysis.dominantFrequency(mix, candidates: []) == nil)
    }
}
