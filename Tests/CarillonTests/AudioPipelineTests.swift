import CarillonCodecs
import CarillonRTC
import NIOCore
import Testing

@testable import Carillon

@Suite struct AudioPipelineTests {
    static let start = NIODeadline.uptimeNanoseconds(5_000_000_000)
    static let candidates: [Double] = [330, 440, 550, 660, 770, 880]

    struct Run {
        var sent: [RTPPacket] = []
        var played: [AudioFrame] = []
        var receiver: AudioReceivePipeline
    }

    /// Plays `frames` 20 ms ticks of a tone through send and receive pipelines with nothing between them but the
    /// wire format, dropping the packets `drop` picks.
    static func roundTrip(mode: AudioMode, frequency: Double, frames: Int, decodes: Bool = true,
                          drop: (Int) -> Bool = { _ in false }) throws -> Run {
        var source = ToneAudioSource(frequency: frequency, amplitude: 0.5, format: mode.format)
        let sender = try AudioSendPipeline(audioMode: mode, ssrc: 0x1234_5678, payloadType: 111, audioLevelExtensionID: 1,
                                           sequenceNumber: 65_500, timestamp: 4_294_960_000)
        var run = Run(receiver: try AudioReceivePipeline(audioMode: mode, payloadType: 111))
        run.receiver.decodes = decodes
        for tick in 0..<frames {
            let now = start + .milliseconds(Int64(20 * tick))
            let packet = try #require(sender.process(source.read(frameMilliseconds: 20)))
            run.sent.append(packet)
            if !drop(tick) { run.receiver.receive(try RTPPacket(parsing: packet.serialized()), arrival: now + .milliseconds(3)) }
            run.played.append(run.receiver.nextFrame(now: now + .milliseconds(5)))
        }
        return run
    }

    @Test(arguments: AudioMode.allCases)
    func toneSurvivesTheRoundTrip(mode: AudioMode) throws {
        let run = try Self.roundTrip(mode: mode, frequency: 660, frames: 100)
        #expect(run.played.allSatisfy { $0.format == mode.format && $0.durationMilliseconds == 20 })
        let tail = AudioFrame(format: mode.format, samples: run.played[50...].flatMap(\.samples)).monoDownmix()
        #expect(FrequencyAnalysis.dominantFrequency(tail, candidates: Self.candidates) == 660)
        #expect(FrequencyAnalysis.powerShareDB(samples: tail.samples, sampleRate: mode.format.sampleRate, frequency: 660) > -1)
        // Amplitude 0.5 is -9 dBov; Opus keeps it within a few dB.
        #expect(abs(AudioLevel.rmsDBov(tail) + 9) < 3)
        #expect(run.receiver.statistics.framesDecoded >= 95)
        #expect(run.receiver.statistics.framesConcealed == 0)
        if mode == .stereo48K {
            let stereo = run.played[60]
            let left = stride(from: 0, to: stereo.samples.count, by: 2).map { stereo.samples[$0] }
            let right = stride(from: 1, to: stereo.samples.count, by: 2).map { stereo.samples[$0] }
            #expect(AudioLevel.rmsDBov(left) > -15 && AudioLevel.rmsDBov(right) > -15)
        }
    }

    @Test func sequenceNumbersAndTimestampsContinueAcrossWraps() throws {
        let run = try Self.roundTrip(mode: .mono16K, frequency: 440, frames: 50)
        for (index, packet) in run.sent.enumerated() {
            #expect(packet.sequenceNumber == UInt16(truncatingIfNeeded: 65_500 + index))
            #expect(packet.timestamp == UInt32(truncatingIfNeeded: 4_294_960_000 + 960 * index))
            #expect(packet.payloadType == 111 && packet.ssrc == 0x1234_5678)
            #expect(packet.marker == (index == 0))
        }
        #expect(run.sent.map(\.sequenceNumber).contains(0))
    }

    @Test func audioLevelExtensionCarriesToneAndSilence() throws {
        let sender = try AudioSendPipeline(audioMode: .mono48K, ssrc: 7, payloadType: 96, audioLevelExtensionID: 3)
        var tone = ToneGenerator(frequency: 440, amplitude: 0.5, format: .mono48k)
        let loud = try #require(sender.process(tone.next(milliseconds: 20)))
        let loudValue = try #require(loud.extensionValue(id: 3))
        let loudLevel = try #require(RTPHeaderExtensionValue.audioLevel(loudValue))
        #expect(loudLevel.voice)
        #expect(loudLevel.level == 9)
        #expect(sender.inputLevel == 9)

        var quietPackets: [RTPPacket] = []
        for _ in 0..<50 { quietPackets.append(try #require(sender.process(.silence(format: .mono48k, milliseconds: 20)))) }
        let levels = quietPackets.map { $0.extensionValue(id: 3).flatMap(RTPHeaderExtensionValue.audioLevel) }
        #expect(levels.count == 50 && levels.allSatisfy { $0?.level == 127 && $0?.voice == false })
        #expect(sender.inputLevel == 127)
        // DTX: silence is carried by tiny packets, sent all the same.
        #expect(quietPackets.suffix(10).allSatisfy { $0.payload.count <= 3 })

        sender.audioLevelExtensionID = nil
        #expect(try #require(sender.process(tone.next(milliseconds: 20))).extensions.isEmpty)
        sender.payloadType = 109
        #expect(try #require(sender.process(tone.next(milliseconds: 20))).payloadType == 109)
    }

    @Test func digitalSilenceReusesTheDTXPayloadWithoutEncoding() throws {
        let sender = try AudioSendPipeline(audioMode: .mono48K, ssrc: 1, payloadType: 111, audioLevelExtensionID: nil,
                                           sequenceNumber: 100)
        var tone = ToneAudioSource(frequency: 440, amplitude: 0.5, format: .mono48k)
        let silence = AudioFrame.silence(format: .mono48k, milliseconds: 20)
        var packets: [RTPPacket] = []
        for _ in 0..<5 { packets.append(try #require(sender.process(tone.read(frameMilliseconds: 20)))) }
        for _ in 0..<50 { packets.append(try #require(sender.process(silence))) }
        // Encoded until DTX settled, then the same tiny payload every frame; still one packet per frame.
        #expect(sender.statistics.framesReused >= 35)
        #expect(packets.suffix(35).allSatisfy { $0.payload.count <= 3 })
        #expect(packets.map(\.sequenceNumber) == (0..<55).map { 100 &+ UInt16($0) })
        // Sound again: encoded at once.
        let reused = sender.statistics.framesReused
        let back = try #require(sender.process(tone.read(frameMilliseconds: 20)))
        #expect(back.payload.count > 3 && sender.statistics.framesReused == reused)
    }

    @Test func mutedSendsNothingAndResumesWithMarker() throws {
        let sender = try AudioSendPipeline(audioMode: .stereo48K, ssrc: 9, payloadType: 111, audioLevelExtensionID: 1,
                                           sequenceNumber: 100, timestamp: 1000)
        var tone = ToneGenerator(frequency: 440, amplitude: 0.5, format: .stereo48k)
        let first = try #require(sender.process(tone.next(milliseconds: 20)))
        sender.setMuted(true)
        let muted = (0..<10).compactMap { _ in sender.process(tone.next(milliseconds: 20)) }
        #expect(muted.isEmpty)
        #expect(sender.statistics.framesMuted == 10)
        #expect(sender.inputLevel == 9)
        sender.setMuted(false)
        let resumed = try #require(sender.process(tone.next(milliseconds: 20)))
        #expect(first.marker && resumed.marker)
        #expect(resumed.sequenceNumber == 101)
        #expect(resumed.timestamp == 1000 + 11 * 960)
        #expect(try #require(sender.process(tone.next(milliseconds: 20))).marker == false)
        #expect(sender.statistics.packetsSent == 3)
    }

    /// Opus from an encoded input goes out as it came, numbered as encoded frames are: a frame without a payload
    /// (a DTX gap) moves the timestamp on but not the sequence number; muted sends nothing; the level and voice flag
    /// are the frame's own. A receiver decodes the result to the tone.
    @Test func encodedFramesArePacketizedAsTheyCameWithGapsAndMute() throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let encoder = try OpusEncoder(format: format, application: .voip, complexity: 4, dtx: false)
        var generator = ToneGenerator(frequency: 550, amplitude: 0.3, format: format)
        let tone = try (0..<60).map { _ in try encoder.encode(generator.next(milliseconds: 20)) }
        let sender = try AudioSendPipeline(audioMode: .stereo48K, ssrc: 5, payloadType: 111, audioLevelExtensionID: 1,
                                           sequenceNumber: 10, timestamp: 2_000)
        let first = try #require(sender.process(encoded: EncodedAudioFrame(payload: tone[0], level: 12, voiceActive: true)))
        #expect(first.payload.elementsEqual(tone[0]))
        #expect(first.sequenceNumber == 10 && first.timestamp == 2_000 && first.marker && first.ssrc == 5)
        let level = try #require(first.extensionValue(id: 1).flatMap(RTPHeaderExtensionValue.audioLevel))
        #expect(level.level == 12 && level.voice)
        #expect(sender.process(encoded: EncodedAudioFrame(payload: nil, level: 127, voiceActive: false)) == nil)
        let afterGap = try #require(sender.process(encoded: EncodedAudioFrame(payload: tone[1], level: 12, voiceActive: true)))
        #expect(afterGap.sequenceNumber == 11 && afterGap.timestamp == 2_000 + 2 * 960 && !afterGap.marker)
        sender.setMuted(true)
        #expect(sender.process(encoded: EncodedAudioFrame(payload: tone[2], level: 12, voiceActive: true)) == nil)
        sender.setMuted(false)
        let resumed = try #require(sender.process(encoded: EncodedAudioFrame(payload: tone[3], level: 12, voiceActive: true)))
        #expect(resumed.sequenceNumber == 12 && resumed.timestamp == 2_000 + 4 * 960 && resumed.marker)
        #expect(sender.statistics.packetsSent == 3 && sender.statistics.framesMuted == 1)

        let receiver = try AudioReceivePipeline(audioMode: .stereo48K, payloadType: 111)
        var played: [AudioFrame] = []
        let continuous = try AudioSendPipeline(audioMode: .stereo48K, ssrc: 6, payloadType: 111, audioLevelExtensionID: nil)
        for (tick, payload) in tone.enumerated() {
            let now = Self.start + .milliseconds(Int64(20 * tick))
            let packet = try #require(continuous.process(encoded: EncodedAudioFrame(payload: payload, level: 12, voiceActive: true)))
            receiver.receive(try RTPPacket(parsing: packet.serialized()), arrival: now + .milliseconds(3))
            played.append(receiver.nextFrame(now: now + .milliseconds(5)))
        }
        let tail = AudioFrame(format: format, samples: played[30...].flatMap(\.samples)).monoDownmix()
        #expect(FrequencyAnalysis.dominantFrequency(tail, candidates: Self.candidates) == 550)
    }

    @Test func capturedFramesInOtherFormatsAreConverted() throws {
        // A 16 kHz mono frame into a 48 kHz stereo session: 960 samples per channel encoded, timestamp + 960.
        let sender = try AudioSendPipeline(audioMode: .stereo48K, ssrc: 9, payloadType: 111, audioLevelExtensionID: nil,
                                           sequenceNumber: 0, timestamp: 0)
        var tone = ToneGenerator(frequency: 440, amplitude: 0.5, format: .mono16k)
        _ = sender.process(tone.next(milliseconds: 20))
        let second = try #require(sender.process(tone.next(milliseconds: 20)))
        #expect(second.timestamp == 960)
        #expect(OpusDecoder.packetDurationMilliseconds(Array(second.payload)) == 20)
    }

    @Test func toneSurvivesTenPercentLossAndLossIsCounted() throws {
        let run = try Self.roundTrip(mode: .mono48K, frequency: 550, frames: 300, drop: { $0 % 10 == 5 })
        let tail = AudioFrame(format: .mono48k, samples: run.played[100...].flatMap(\.samples))
        #expect(FrequencyAnalysis.dominantFrequency(tail, candidates: Self.candidates) == 550)
        #expect(FrequencyAnalysis.powerShareDB(samples: tail.samples, sampleRate: 48_000, frequency: 550) > -1)
        // Every lost frame was rebuilt (FEC) or concealed, not left silent.
        let repaired = run.receiver.statistics.framesRecovered + run.receiver.statistics.framesConcealed
        #expect(repaired >= 28)
        // Most losses had their successor buffered already and came back from its in-band FEC.
        #expect(run.receiver.statistics.framesRecovered >= 20)
        #expect(run.receiver.jitterBufferStatistics.packetsLost == 30)
        #expect(run.played[100...].filter { AudioLevel.rmsDBov($0) < -40 }.isEmpty)

        let interval = run.receiver.takeLossInterval()
        #expect(interval.expected == 300)
        #expect(interval.received == 270)
        #expect(interval.lost == 30)
        #expect(interval.lossPercent == 10)
        let next = run.receiver.takeLossInterval()
        #expect(next == PacketLossInterval(expected: 0, received: 0))
    }

    @Test func lossIntervalsFollowSequenceGapsAndSSRCChanges() throws {
        let receiver = try AudioReceivePipeline(audioMode: .mono48K, payloadType: 111)
        func packet(_ sequence: UInt16, ssrc: UInt32 = 1, payloadType: UInt8 = 111) -> RTPPacket {
            RTPPacket(payloadType: payloadType, sequenceNumber: sequence, timestamp: UInt32(sequence) * 960, ssrc: ssrc, payload: [0xF8, 0xFF, 0xFE][...])
        }
        for sequence: UInt16 in [10, 11, 13, 14, 17] { receiver.receive(packet(sequence), arrival: Self.start) }
        receiver.receive(packet(18, payloadType: 0), arrival: Self.start)
        #expect(receiver.statistics.packetsIgnored == 1)
        #expect(receiver.takeLossInterval() == PacketLossInterval(expected: 8, received: 5))
        receiver.receive(packet(18), arrival: Self.start)
        receiver.receive(packet(500, ssrc: 2), arrival: Self.start)
        receiver.receive(packet(502, ssrc: 2), arrival: Self.start)
        let interval = receiver.takeLossInterval()
        #expect(interval == PacketLossInterval(expected: 4, received: 3))
        #expect(interval.lost == 1 && abs(interval.lossPercent - 25) < 1e-9)
        #expect(receiver.ssrc == 2)
    }

    @Test func withoutDecodingFramesAreSilentButPacketsAreCounted() throws {
        let run = try Self.roundTrip(mode: .mono48K, frequency: 550, frames: 100, decodes: false, drop: { $0 % 10 == 5 })
        #expect(run.played.allSatisfy { $0.isSilent })
        #expect(run.receiver.statistics.framesDecoded == 0 && run.receiver.statistics.framesConcealed == 0)
        #expect(run.receiver.takeLossInterval() == PacketLossInterval(expected: 100, received: 90))
        // The jitter buffer is still drained: nothing piles up in it.
        #expect(run.receiver.jitterBufferStatistics.packetsLost == 10)
    }

    @Test func silenceBeforeAnyPacketAndAfterTheStreamStops() throws {
        let receiver = try AudioReceivePipeline(audioMode: .stereo48K)
        let frame = receiver.nextFrame(now: Self.start)
        #expect(frame.format == .stereo48k && frame.samples.count == 1920 && frame.isSilent)
        #expect(receiver.statistics.framesSilent == 1)
    }
}
