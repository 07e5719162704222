import CarillonCodecs
import Testing

/// libopus through the Swift wrappers: tones survive a round trip, DTX, FEC, concealment and bad packets.
@Suite struct OpusCodecTests {
    static let candidates: [Double] = [220, 440, 660, 1000, 2000]

    @Test(arguments: [AudioFormat.mono48k, .stereo48k, .mono16k])
    func toneSurvivesARoundTrip(format: AudioFormat) throws {
        let encoder = try OpusEncoder(format: format, application: .voip)
        let decoder = try OpusDecoder(format: format)
        var decoded: [AudioFrame] = []
        for frame in TestSignals.toneFrames(440, format: format, count: 50) {
            let packet = try encoder.encode(frame)
            #expect(OpusDecoder.packetDurationMilliseconds(packet) == 20)
            let output = try decoder.decode(packet)
            #expect(output.format == format && output.frameCount == format.samplesPerFrame(milliseconds: 20))
            decoded.append(output)
        }
        // The first two frames hold the codec's start-up delay.
        for channel in 0..<format.channels {
            let samples = TestSignals.channel(TestSignals.joined(Array(decoded.dropFirst(2))), channel, of: format.channels)
            let dominant = FrequencyAnalysis.dominantFrequency(samples: samples, sampleRate: format.sampleRate, candidates: Self.candidates)
            #expect(dominant == 440)
            let margin = FrequencyAnalysis.relativePowerDB(samples: samples, sampleRate: format.sampleRate, frequency: 440, reference: 1000)
            #expect(margin > 20, "440 Hz only \(margin) dB above 1 kHz")
            // Level kept within 3 dB of the 0.5 amplitude input (-6 dB).
            let power = FrequencyAnalysis.decibels(FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: format.sampleRate, frequency: 440))
            #expect(abs(power + 6.02) < 3, "440 Hz at \(power) dB")
        }
    }

    @Test func silenceWithDTXGivesTinyPackets() throws {
        let encoder = try OpusEncoder(format: .mono48k, application: .voip, dtx: true)
        let sizes = try (0..<100).map { _ in try encoder.encode(.silence(format: .mono48k, milliseconds: 20)).count }
        // libopus needs about 200 ms of silence before it stops sending; then all but periodic refreshes are tiny.
        let tiny = sizes.dropFirst(20).filter { $0 <= 3 }.count
        #expect(tiny >= 70, "sizes: \(sizes)")
        #expect(sizes.prefix(5).allSatisfy { $0 > 0 })
        // Without DTX silence still costs real packets.
        let plain = try OpusEncoder(format: .mono48k, application: .voip, dtx: false)
        let plainSizes = try (0..<50).map { _ in try plain.encode(.silence(format: .mono48k, milliseconds: 20)).count }
        #expect(plainSizes.dropFirst(20).allSatisfy { $0 > 3 }, "sizes: \(plainSizes)")
    }

    @Test func packetDurationFollowsTheFrameLength() throws {
        let encoder = try OpusEncoder(format: .mono48k, application: .audio)
        var tone = ToneGenerator(frequency: 440, format: .mono48k)
        for milliseconds in [10, 20, 40, 60] {
            let packet = try encoder.encode(tone.next(milliseconds: milliseconds))
            #expect(OpusDecoder.packetDurationMilliseconds(packet) == milliseconds)
        }
        #expect(OpusDecoder.packetDurationMilliseconds([]) == nil)
        #expect(OpusDecoder.packetSampleCount([0x03, 0x00], sampleRate: 48_000) == nil)
        #expect(throws: OpusError.unsupportedFrameLength(samplesPerChannel: 480 + 48, format: .mono48k)) {
            try encoder.encode(tone.next(milliseconds: 11))
        }
        #expect(throws: OpusError.formatMismatch(expected: .mono48k, got: .mono16k)) {
            try encoder.encode(.silence(format: .mono16k, milliseconds: 20))
        }
    }

    @Test func fecRecoversALostFrameAndConcealmentFillsGaps() throws {
        let encoder = try OpusEncoder(format: .mono48k, application: .voip, inbandFEC: true, expectedPacketLossPercent: 20)
        let packets = try TestSignals.toneFrames(440, format: .mono48k, count: 40).map { try encoder.encode($0) }
        let decoder = try OpusDecoder(format: .mono48k)
        for packet in packets[0..<20] { _ = try decoder.decode(packet) }
        // Packet 20 is lost; packet 21 carries its FEC copy.
        let recovered = try decoder.decodeFEC(from: packets[21])
        #expect(recovered.frameCount == 960)
        #expect(FrequencyAnalysis.dominantFrequency(recovered, candidates: Self.candidates) == 440)
        let level = FrequencyAnalysis.decibels(FrequencyAnalysis.goertzelPower(recovered, frequency: 440))
        #expect(level > -12, "recovered 440 Hz at \(level) dB")
        let next = try decoder.decode(packets[21])
        #expect(FrequencyAnalysis.dominantFrequency(next, candidates: Self.candidates) == 440)

        // The FEC copy is closer to what the lost packet decodes to than concealment (a guess) is.
        let reference = try OpusDecoder(format: .mono48k)
        let guesser = try OpusDecoder(format: .mono48k)
        for packet in packets[0..<20] {
            _ = try reference.decode(packet)
            _ = try guesser.decode(packet)
        }
        let lost = try reference.decode(packets[20])
        let guessed = try guesser.concealLoss()
        let fecError = Self.difference(recovered, lost)
        let guessError = Self.difference(guessed, lost)
        #expect(fecError < guessError / 100, "FEC error \(fecError), concealment error \(guessError)")

        let concealed = try decoder.concealLoss()
        #expect(concealed.frameCount == 960 && concealed.format == .mono48k)
        #expect(try decoder.concealLoss(frameMilliseconds: 10).frameCount == 480)
        #expect(throws: OpusError.unsupportedDuration(milliseconds: 7)) { try decoder.concealLoss(frameMilliseconds: 7) }
        #expect(throws: OpusError.emptyPacket) { try decoder.decode([]) }
    }

    /// Mean squared difference of two equally long frames.
    static func difference(_ a: AudioFrame, _ b: AudioFrame) -> Double {
        zip(a.samples, b.samples).reduce(0.0) { $0 + (Double($1.0) - Double($1.1)) * (Double($1.0) - Double($1.1)) } / Double(a.samples.count)
    }

    @Test func corruptPacketThrowsAndTheDecoderCarriesOn() throws {
        let encoder = try OpusEncoder(format: .mono48k, application: .voip)
        let decoder = try OpusDecoder(format: .mono48k)
        let packets = try TestSignals.toneFrames(440, format: .mono48k, count: 20).map { try encoder.encode($0) }
        for packet in packets[0..<10] { _ = try decoder.decode(packet) }
        // Code 3 (several frames) with a frame count of zero is invalid in every mode.
        do {
            _ = try decoder.decode([0x03, 0x00])
            Issue.record("a frame count of zero decoded")
        } catch {
            #expect(error.isInvalidPacket, "\(error)")
            #expect(error.description.contains("corrupted"))
        }
        var seeded = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let garbage = (0..<Int(seeded.next() % 60 + 1)).map { _ in UInt8(truncatingIfNeeded: seeded.next()) }
            _ = try? decoder.decode(garbage)
        }
        decoder.reset()
        let after = try packets[10..<20].map { try decoder.decode($0) }
        let samples = TestSignals.joined(Array(after.dropFirst(2)))
        #expect(FrequencyAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000, candidates: Self.candidates) == 440)
    }

    @Test func rejectsBadArguments() throws {
        #expect(throws: OpusError.unsupportedFormat(AudioFormat(sampleRate: 44_100, channels: 1))) {
            try OpusEncoder(format: AudioFormat(sampleRate: 44_100, channels: 1), application: .audio)
        }
        #expect(throws: OpusError.unsupportedFormat(AudioFormat(sampleRate: 48_000, channels: 3))) {
            try OpusDecoder(format: AudioFormat(sampleRate: 48_000, channels: 3))
        }
        #expect(throws: OpusError.self) { try OpusEncoder(format: .mono48k, application: .voip, complexity: 11) }
        let encoder = try OpusEncoder(format: .mono48k, application: .voip)
        #expect(throws: OpusError.self) { try encoder.setBitrate(100) }
        #expect(throws: OpusError.self) { try encoder.setExpectedPacketLossPercent(101) }
        try encoder.setBitrate(64_000)
        try encoder.setDTX(false)
        try encoder.setInbandFEC(false)
        try encoder.setExpectedPacketLossPercent(0)
        #expect(encoder.bitrate == 64_000 && !encoder.dtx && !encoder.inbandFEC && encoder.expectedPacketLossPercent == 0)
        #expect(encoder.lookahead > 0)
    }

    @Test func higherBitrateGivesLargerPackets() throws {
        let frames = TestSignals.toneFrames(440, format: .mono48k, count: 25)
        let low = try OpusEncoder(format: .mono48k, application: .audio, bitrate: 12_000, dtx: false)
        let high = try OpusEncoder(format: .mono48k, application: .audio, bitrate: 96_000, dtx: false)
        let lowBytes = try frames.reduce(0) { $0 + (try low.encode($1)).count }
        let highBytes = try frames.reduce(0) { $0 + (try high.encode($1)).count }
        #expect(highBytes > 3 * lowBytes, "\(lowBytes) vs \(highBytes) bytes")
    }
}
