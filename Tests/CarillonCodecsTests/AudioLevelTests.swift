import CarillonCodecs
import Testing

/// dBov levels, RFC 6464 values, voice activity and the UI meter.
@Suite struct AudioLevelTests {
    @Test func fullScaleSquareIsZeroDBov() {
        let square = AudioFrame(format: .mono48k, samples: (0..<960).map { $0 % 48 < 24 ? Int16.max : -Int16.max })
        #expect(abs(AudioLevel.rmsDBov(square)) < 0.001)
        #expect(AudioLevel.rfc6464Level(square) == 0)
    }

    @Test func sineAtMinus20DBFSIsMinus23DBov() {
        var tone = ToneGenerator(frequency: 1000, amplitude: 0.1, format: .mono48k)
        let frame = tone.next()
        let level = AudioLevel.rmsDBov(frame)
        #expect(abs(level - (-23.01)) < 0.05, "\(level) dBov")
        #expect(AudioLevel.rfc6464Level(frame) == 23)
        #expect(AudioLevel.isVoiceActive(frame))
    }

    @Test func silenceIs127() {
        let silence = AudioFrame.silence(format: .stereo48k, milliseconds: 20)
        #expect(AudioLevel.rmsDBov(silence) == -127)
        #expect(AudioLevel.rfc6464Level(silence) == 127)
        #expect(!AudioLevel.isVoiceActive(silence))
        #expect(AudioLevel.rmsDBov([]) == -127)
        // One LSB of noise is about -90 dBov, still far from the 127 floor.
        let faint = AudioFrame(format: .mono48k, samples: (0..<960).map { $0 % 2 == 0 ? 1 : -1 })
        #expect(AudioLevel.rfc6464Level(faint) == 90)
    }

    @Test func levelsAreMonotonic() {
        let amplitudes = [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
        let levels = amplitudes.map { amplitude -> Double in
            var tone = ToneGenerator(frequency: 440, amplitude: amplitude, format: .mono16k)
            return AudioLevel.rmsDBov(tone.next())
        }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 }, "\(levels)")
        let values = levels.map { AudioLevel.rfc6464Level(dBov: $0) }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 > $1 }, "\(values)")
        // Whole decades of amplitude are 20 dB apart.
        #expect(abs(levels[8] - levels[6] - 20) < 0.1 && abs(levels[6] - levels[4] - 20) < 0.1)
        #expect(AudioLevel.rfc6464Level(dBov: 5) == 0 && AudioLevel.rfc6464Level(dBov: -300) == 127)
        #expect(AudioLevel.dBov(rfc6464Level: 40) == -40)
    }

    @Test func voiceThresholdSeparatesSpeechFromNoiseFloor() {
        var soft = ToneGenerator(frequency: 300, amplitude: 0.01, format: .mono48k)   // -43 dBov
        var floor = ToneGenerator(frequency: 300, amplitude: 0.001, format: .mono48k) // -63 dBov
        #expect(AudioLevel.isVoiceActive(soft.next()))
        #expect(!AudioLevel.isVoiceActive(floor.next()))
        #expect(!AudioLevel.isVoiceActive(soft.next(), thresholdDBov: -30))
    }

    @Test func meterRisesAtOnceAndFallsSlowly() {
        #expect(VolumeMeter.linearVolume(dBov: -30) == 0.5)
        #expect(VolumeMeter.linearVolume(dBov: -80) == 0 && VolumeMeter.linearVolume(dBov: 3) == 1)
        var meter = VolumeMeter()
        #expect(meter.update(dBov: -12) == 0.8)
        let first = meter.update(dBov: -127)
        let second = meter.update(dBov: -127)
        #expect(abs(first - 0.56) < 1e-9 && second < first && second > 0)
        var loud = ToneGenerator(frequency: 440, amplitude: 1, format: .mono48k)
        #expect(abs(meter.update(loud.next()) - 0.95) < 0.01)
        #expect(VolumeMeter(floorDBov: 10, releaseFactor: 7).floorDBov == -1)
    }
}
