@testable import CarillonCodecs
import Testing

/// Rate and channel conversion: quality, exact lengths, seamless frames.
@Suite struct AudioResamplerTests {
    static func format(_ rate: Int, _ channels: Int = 1) -> AudioFormat { AudioFormat(sampleRate: rate, channels: channels) }

    @Test func toneSurvives48kTo16kAndBack() throws {
        var down = try AudioResampler(from: .mono48k, to: .mono16k)
        var up = try AudioResampler(from: .mono16k, to: .mono48k)
        let input = TestSignals.toneFrames(1000, format: .mono48k, count: 50)
        var middle: [AudioFrame] = []
        var output: [AudioFrame] = []
        for frame in input {
            let narrow = down.process(frame)
            #expect(narrow.format == .mono16k && narrow.frameCount == 320)
            middle.append(narrow)
            let wide = up.process(narrow)
            #expect(wide.frameCount == 960)
            output.append(wide)
        }
        let original = TestSignals.joined(input)
        let result = TestSignals.joined(output)
        // The best alignment is the two filters' stated delay.
        let expectedLag = Int(((down.latencySeconds + up.latencySeconds) * 48_000).rounded())
        #expect(expectedLag == 144)
        // Search within half a period of the tone (24 samples), where the alignment is unambiguous.
        let lag = ((expectedLag - 20)...(expectedLag + 20)).min { Self.error(original, result, lag: $0) < Self.error(original, result, lag: $1) }
        #expect(lag == expectedLag)
        let snr = Self.snrDB(original, result, lag: expectedLag)
        // 30 dB is the requirement; the filter gives about 84 dB, so a regression shows long before that.
        #expect(snr > 60, "SNR \(snr) dB")
        let candidates: [Double] = [500, 1000, 2000, 3000, 5000]
        #expect(FrequencyAnalysis.dominantFrequency(samples: TestSignals.joined(middle), sampleRate: 16_000, candidates: candidates) == 1000)
        #expect(FrequencyAnalysis.dominantFrequency(samples: result, sampleRate: 48_000, candidates: candidates) == 1000)
    }

    @Test func framesJoinExactlyLikeOneLongFrame() throws {
        // Any split of the input gives the same output samples as feeding it all at once.
        for (input, output) in [(44_100, 48_000), (48_000, 44_100), (48_000, 16_000), (8_000, 48_000)] {
            let source = TestSignals.joined(TestSignals.toneFrames(1000, format: Self.format(input), count: 1, milliseconds: 1000))
            var single = try AudioResampler(from: Self.format(input), to: Self.format(output))
            let reference = single.process(AudioFrame(format: Self.format(input), samples: source)).samples
            #expect(reference.count == output, "\(input) -> \(output)")
            var split = try AudioResampler(from: Self.format(input), to: Self.format(output))
            var seeded = SeededGenerator(seed: UInt64(input + output))
            var pieces: [Int16] = []
            var offset = 0
            while offset < source.count {
                let length = min(source.count - offset, Int(seeded.next() % 700))
                pieces += split.process(AudioFrame(format: Self.format(input), samples: Array(source[offset..<offset + length]))).samples
                offset += length
            }
            #expect(pieces == reference, "\(input) -> \(output)")
        }
    }

    @Test func noClicksAtFrameBoundaries() throws {
        var resampler = try AudioResampler(from: Self.format(44_100), to: .mono48k)
        let amplitude = 0.5
        let frames = TestSignals.toneFrames(1000, amplitude: amplitude, format: Self.format(44_100), count: 100, milliseconds: 10)
        let output = frames.map { resampler.process($0) }
        #expect(output.allSatisfy { $0.frameCount == 480 })
        // Skip the first 2 ms: the tone's abrupt start rings through the low-pass like any band-limited onset.
        let samples = Array(TestSignals.joined(output).dropFirst(96))
        // A 1 kHz sine at 48 kHz moves at most 2π·1000/48000 of its peak per sample.
        let limit = amplitude * 32_767 * 2 * Double.pi * 1000 / 48_000 * 1.01
        let jumps = zip(samples.dropFirst(), samples).map { abs(Double($0) - Double($1)) }
        let largest = jumps.max() ?? 0
        #expect(largest < limit, "largest step \(largest), limit \(limit)")
        #expect(largest > limit * 0.97, "the tone should be at full level")
    }

    @Test(arguments: [(8_000, 48_000), (48_000, 8_000), (16_000, 24_000), (32_000, 44_100), (48_000, 44_100), (24_000, 16_000)])
    func keepsAToneBetweenRates(input: Int, output: Int) throws {
        var resampler = try AudioResampler(from: Self.format(input), to: Self.format(output))
        let frames = TestSignals.toneFrames(1000, format: Self.format(input), count: 25)
        let samples = TestSignals.joined(frames.map { resampler.process($0) })
        #expect(samples.count == output / 2)
        let steady = Array(samples.dropFirst(output / 20))
        let dominance = FrequencyAnalysis.dominanceDB(samples: steady, sampleRate: output, frequency: 1000, over: [300, 1500, 2500, 3000])
        #expect(dominance > 40, "\(input) -> \(output): \(dominance) dB")
        let level = FrequencyAnalysis.decibels(FrequencyAnalysis.goertzelPower(samples: steady, sampleRate: output, frequency: 1000))
        #expect(abs(level + 6.02) < 0.5, "\(input) -> \(output): level \(level) dB")
    }

    @Test func removesWhatTheLowerRateCannotCarry() throws {
        // 12 kHz would alias to 4 kHz at 16 kHz; the low-pass must remove it first.
        var resampler = try AudioResampler(from: .mono48k, to: .mono16k)
        let frames = TestSignals.toneFrames(12_000, amplitude: 0.9, format: .mono48k, count: 25)
        let samples = Array(TestSignals.joined(frames.map { resampler.process($0) }).dropFirst(800))
        let alias = FrequencyAnalysis.decibels(FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: 16_000, frequency: 4000))
        #expect(alias < -60, "alias at \(alias) dB")
    }

    @Test func convertsChannels() throws {
        var up = try AudioResampler(from: .mono16k, to: .stereo48k)
        let frames = TestSignals.toneFrames(1000, format: .mono16k, count: 10)
        let stereo = frames.map { up.process($0) }
        #expect(stereo.allSatisfy { $0.format == .stereo48k && $0.frameCount == 960 })
        let samples = TestSignals.joined(stereo)
        let left = TestSignals.channel(samples, 0, of: 2)
        #expect(left == TestSignals.channel(samples, 1, of: 2))
        #expect(FrequencyAnalysis.dominantFrequency(samples: left, sampleRate: 48_000, candidates: [500, 1000, 2000]) == 1000)

        var down = try AudioResampler(from: .stereo48k, to: .mono16k)
        let mono = TestSignals.toneFrames(1000, format: .stereo48k, count: 10).map { down.process($0) }
        #expect(mono.allSatisfy { $0.format == .mono16k && $0.frameCount == 320 })
        #expect(FrequencyAnalysis.dominantFrequency(samples: TestSignals.joined(mono), sampleRate: 16_000, candidates: [500, 1000, 2000]) == 1000)

        // Equal rates only remix, with no delay.
        var remix = try AudioResampler(from: .stereo48k, to: .mono48k)
        let pair = AudioFrame(format: .stereo48k, samples: [100, 300, -5, -7])
        #expect(remix.process(pair).samples == [200, -6])
        #expect(remix.latencySeconds == 0)
    }

    @Test func rejectsUnsupportedConversions() {
        #expect(throws: AudioFrameError.unsupportedConversion(from: Self.format(0), to: .mono48k)) {
            try AudioResampler(from: Self.format(0), to: .mono48k)
        }
        #expect(throws: AudioFrameError.self) { try AudioResampler(from: .mono48k, to: Self.format(48_000, 3)) }
        #expect(throws: AudioFrameError.self) { try AudioResampler(from: Self.format(48_000), to: Self.format(44_099)) }
    }

    static func error(_ original: [Int16], _ result: [Int16], lag: Int) -> Double {
        var total = 0.0
        for index in 2000..<(original.count - 1000) {
            let difference = Double(result[index + lag]) - Double(original[index])
            total += difference * difference
        }
        return total
    }

    static func snrDB(_ original: [Int16], _ result: [Int16], lag: Int) -> Double {
        var signal = 0.0
        for index in 2000..<(original.count - 1000) { signal += Double(original[index]) * Double(original[index]) }
        return FrequencyAnalysis.decibels(signal / max(error(original, result, lag: lag), 1e-9))
    }
}
