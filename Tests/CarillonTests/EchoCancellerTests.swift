import CarillonCodecs
import CarillonMeasurement
import CarillonRTC
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import Carillon

/// Echo cancellation on a simulated echo path: what is played comes back into the microphone 6 dB down and 50 ms
/// late; the attendee at the microphone talks only when the far end is silent.
@Suite struct EchoCancellerTests {
    static let rate = 48_000
    static let frame = 960

    /// Runs 12 s through a canceller: the far end talks for the first 8 s, the near end from 8.5 s on.
    static func run(format: AudioFormat = .mono48k) throws -> (echo: [Int16], near: [Int16], output: [Int16]) {
        var random = SeededRandom(seed: 41)
        let far = SpeechCorpus(seconds: 8, using: &random).cleanSamples + [Int16](repeating: 0, count: 4 * rate)
        let nearSpeech = SpeechCorpus(seconds: 3.5, using: &random).cleanSamples
        let near = [Int16](repeating: 0, count: 8 * rate + rate / 2) + nearSpeech
        let delay = rate / 20
        let echo = (0..<far.count).map { $0 >= delay ? far[$0 - delay] / 2 : 0 }
        let canceller = try EchoCanceller(format: .mono48k, gainControl: false, highPassFilter: true)
        var output: [Int16] = []
        for start in stride(from: 0, to: far.count - frame + 1, by: frame) {
            let microphone = (start..<start + frame).map { Int16(clamping: Int32(echo[$0]) + Int32(near[$0])) }
            output += canceller.process(AudioFrame(format: .mono48k, samples: microphone)).samples
            canceller.played(AudioFrame(format: .mono48k, samples: Array(far[start..<start + frame])))
        }
        #expect(canceller.failures == 0)
        return (echo, near, output)
    }

    static func energy(_ samples: [Int16], _ range: Range<Int>) -> Double {
        range.reduce(0.0) { $0 + Double(samples[$1]) * Double(samples[$1]) }
    }

    @Test func removesTwentyDBOfEchoAfterConvergenceAndKeepsTheNearEnd() throws {
        let (echo, near, output) = try Self.run()
        // After 3 s of convergence, to the end of the far end's speech (its echo ends 50 ms after 8 s).
        let converged = 3 * Self.rate..<8 * Self.rate
        let removed = 10 * log10(Self.energy(echo, converged) / max(Self.energy(output, converged), 1))
        #expect(removed >= 20, "echo removed: \(removed) dB")
        // The near end alone: kept within 3 dB (the canceller's 7 ms delay does not matter for energy).
        let nearAlone = 9 * Self.rate..<12 * Self.rate - Self.frame
        let kept = 10 * log10(Self.energy(output, nearAlone) / Self.energy(near, nearAlone))
        #expect(abs(kept) <= 3, "near end changed by \(kept) dB")
        print("simulated echo path: \(removed) dB of echo removed after 3 s, near end alone changed by \(kept) dB")
    }

    @Test func refusesFormatsTheLibraryCannotTake() {
        #expect(throws: EchoCanceller.Failure.unsupportedFormat(AudioFormat(sampleRate: 44_100, channels: 1))) {
            try EchoCanceller(format: AudioFormat(sampleRate: 44_100, channels: 1))
        }
        #expect(throws: EchoCanceller.Failure.unsupportedFormat(AudioFormat(sampleRate: 48_000, channels: 3))) {
            try EchoCanceller(format: AudioFormat(sampleRate: 48_000, channels: 3))
        }
    }

    @Test func theMediaCoreRunsItOnlyWhenTheShellAsks() throws {
        let core = SessionMediaCore()
        let connection = SessionMediaCore.Connection(
            ssrc: 1, cname: "self", payloadType: 111, audioLevelExtensionId: 1, audioMode: .stereo48K,
            capabilities: .inputAndOutput, muted: false, firstSequenceNumber: 0, firstTimestamp: 0)
        let start = SessionTime(monotonic: .uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
        try core.setEchoCancellation(true)
        #expect(!core.isCancellingEcho, "nothing to cancel without a media connection")
        _ = try core.connected(connection, now: start)
        #expect(!core.isCancellingEcho, "off until the shell says the devices are real")
        try core.setEchoCancellation(true)
        #expect(core.isCancellingEcho)
        let frames = (0..<10).map { index in
            core.frameTick(captured: .silence(format: .stereo48k, milliseconds: 20), now: start.advanced(by: .milliseconds(Int64(20 * index))))
        }
        #expect(frames.allSatisfy { $0.contains { if case .play = $0 { true } else { false } } })
        try core.setEchoCancellation(false)
        #expect(!core.isCancellingEcho)
    }
}

