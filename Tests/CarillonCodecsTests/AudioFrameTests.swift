import CarillonCodecs
import Testing

/// Mixing, gain and channel conversion of frames.
@Suite struct AudioFrameTests {
    @Test func mixSaturatesInsteadOfWrapping() throws {
        let loud = AudioFrame(format: .mono48k, samples: [Int16.max, 30_000, -30_000, 10_000])
        let mixed = try AudioFrame.mix([loud, loud])
        #expect(mixed.samples == [Int16.max, Int16.max, Int16.min, 20_000])
        let cancel = try loud.mixed(with: AudioFrame(format: .mono48k, samples: [-1, -30_000, 30_000, -3_000]))
        #expect(cancel.samples == [32_766, 0, 0, 7_000])
        // Clipping happens once, after the sum: +max, +max, -max gives +max rather than 0.
        let three = try AudioFrame.mix([loud, loud, AudioFrame(format: .mono48k, samples: [-Int16.max, 0, 0, 0])])
        #expect(three.samples[0] == Int16.max)
    }

    @Test func mixHandlesLengthsAndRejectsMismatches() throws {
        let long = AudioFrame(format: .stereo48k, samples: [1, 2, 3, 4])
        let short = AudioFrame(format: .stereo48k, samples: [10, 20])
        #expect(try AudioFrame.mix([short, long]).samples == [11, 22, 3, 4])
        #expect(try AudioFrame.mix([long]) == long)
        #expect(throws: AudioFrameError.noFrames) { try AudioFrame.mix([]) }
        #expect(throws: AudioFrameError.formatMismatch(expected: .stereo48k, got: .mono48k)) {
            try AudioFrame.mix([long, AudioFrame(format: .mono48k, samples: [1, 2])])
        }
    }

    @Test func scalesAndRemixesChannels() {
        let frame = AudioFrame(format: .stereo48k, samples: [1000, -1000, 32_000, 32_000, -3, -4])
        #expect(frame.scaled(by: 0.5).samples == [500, -500, 16_000, 16_000, -2, -2])
        #expect(frame.scaled(by: 2).samples == [2000, -2000, Int16.max, Int16.max, -6, -8])
        let mono = frame.monoDownmix()
        #expect(mono.format == .mono48k && mono.samples == [0, 32_000, -4])
        let stereo = mono.stereoUpmix()
        #expect(stereo.format == .stereo48k && stereo.samples == [0, 0, 32_000, 32_000, -4, -4])
        #expect(frame.frameCount == 3 && stereo.monoDownmix() == mono)
    }

    @Test func silenceHasTheRightLength() {
        let silence = AudioFrame.silence(format: .stereo48k, milliseconds: 20)
        #expect(silence.samples.count == 1920 && silence.frameCount == 960 && silence.durationMilliseconds == 20)
        #expect(silence.isSilent)
        #expect(AudioFrame.silence(format: .mono16k, milliseconds: 10).durationMilliseconds == 10)
    }
}
