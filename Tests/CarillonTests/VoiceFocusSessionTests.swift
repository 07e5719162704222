import CarillonCodecs
import CarillonMeasurement
import CarillonRTC
import Testing

@testable import Carillon

/// Voice Focus in the SDK: where the send pipeline runs the suppressor, how the media core keeps the setting, and
/// the API's answers outside a meeting.
@Suite struct VoiceFocusSessionTests {
    static let library = try? RNNoiseLibrary.shared.get()
    static let skipReason: Comment = "RNNoise is not installed (`make rnnoise` puts it in .deps/rnnoise, or set CARILLON_RNNOISE_LIBRARY)"

    /// Two seconds of fan noise alone, as 20 ms frames.
    static func fanFrames() -> [AudioFrame] {
        var random = SeededRandom(seed: 21)
        let corpus = SpeechCorpus(seconds: 2, using: &random)
        let noise = corpus.noisy(corpus.noise(.fan, using: &random), snrDB: 0)
        let fanOnly = zip(noise, corpus.cleanSamples).map { $0 &- $1 }
        return stride(from: 0, to: fanOnly.count - 959, by: 960).map {
            AudioFrame(format: .mono48k, samples: Array(fanOnly[$0..<$0 + 960]))
        }
    }

    /// In a stereo session too: the suppressor cleans the mono signal (one RNNoise state, half the cost of two).
    @Test(.enabled(if: library != nil, skipReason), arguments: [AudioMode.mono48K, .stereo48K])
    func thePipelineMeasuresTheLevelAfterSuppression(mode: AudioMode) throws {
        let library = try #require(Self.library)
        let pipeline = try AudioSendPipeline(audioMode: mode, ssrc: 1, payloadType: 111, audioLevelExtensionID: 1,
                                             sequenceNumber: 0, timestamp: 0)
        #expect(pipeline.suppressorFormat == .mono48k)
        let frames = Self.fanFrames()
        for frame in frames.prefix(50) { _ = pipeline.process(frame) }
        let levelOff = pipeline.inputLevel
        pipeline.setNoiseSuppressor(try NoiseSuppressor(library: library, format: pipeline.suppressorFormat))
        for frame in frames.dropFirst(50) { _ = pipeline.process(frame) }
        let levelOn = pipeline.inputLevel
        // RFC 6464 levels are -dBov: the fan alone must read at least 20 dB quieter once suppressed.
        #expect(Int(levelOn) - Int(levelOff) >= 20, "level \(levelOff) off, \(levelOn) on")
        pipeline.setNoiseSuppressor(nil)
        _ = pipeline.process(frames[10])
        #expect(abs(Int(pipeline.inputLevel) - Int(levelOff)) <= 2, "\(pipeline.inputLevel) off again")
    }

    @Test(.enabled(if: library != nil, skipReason))
    func theMediaCoreKeepsTheSettingAcrossConnections() throws {
        let library = try #require(Self.library)
        let core = SessionMediaCore()
        #expect(!core.isVoiceFocusEnabled)
        try core.setVoiceFocus(library)
        #expect(core.isVoiceFocusEnabled)
        let connection = SessionMediaCore.Connection(
            ssrc: 1, cname: "self", payloadType: 111, audioLevelExtensionId: 1, audioMode: .mono16K,
            capabilities: .inputAndOutput, muted: false, firstSequenceNumber: 0, firstTimestamp: 0)
        let start = SessionTime(monotonic: .uptimeNanoseconds(1_000_000_000), unixNanoseconds: 1_700_000_000_000_000_000)
        _ = try core.connected(connection, now: start)
        // 16 kHz capture is resampled to 48 kHz first: the suppressor runs at the encoder's rate. The sent level of
        // the fan alone (the RTP audio-level extension) shows whether it ran.
        var resampler = try AudioResampler(from: .mono48k, to: .mono16k)
        var milliseconds: Int64 = 0
        func sentLevel(_ frame: AudioFrame) throws -> UInt8? {
            defer { milliseconds += 20 }
            let effects = core.frameTick(captured: resampler.process(frame), now: start.advanced(by: .milliseconds(milliseconds)))
            for case .sendRTP(let bytes) in effects { return try RTPPacket(parsing: bytes).audioLevel(extensionId: 1) }
            return nil
        }
        let frames = Self.fanFrames()
        var levelOn: UInt8?
        for frame in frames.prefix(50) { levelOn = try sentLevel(frame) }
        try core.setVoiceFocus(nil)
        var levelOff: UInt8?
        for frame in frames.dropFirst(50) { levelOff = try sentLevel(frame) }
        let on = try #require(levelOn), off = try #require(levelOff)
        #expect(Int(on) - Int(off) >= 20, "sent level \(on) with Voice Focus, \(off) without")
        try core.setVoiceFocus(nil)
        #expect(!core.isVoiceFocusEnabled)
        _ = core.stop()
        try core.setVoiceFocus(library)
        #expect(core.isVoiceFocusEnabled)
    }

    @Test func theAPIRefusesOutsideAMeetingAndSaysWhy() {
        let logger = RecordingLogger()
        let session = DefaultMeetingSession(configuration: UnstartedSession.configuration, logger: logger)
        #expect(!session.audioVideo.realtimeIsVoiceFocusEnabled())
        #expect(!session.audioVideo.realtimeSetVoiceFocusEnabled(enabled: true))
        #expect(!session.audioVideo.realtimeIsVoiceFocusEnabled())
        let logged = logger.messages(at: .ERROR).joined(separator: "\n")
        let expected = Self.library == nil ? "notInitialized" : "audioClientNotStarted"
        #expect(logged.contains("realtimeSetVoiceFocusEnabled") && logged.contains(expected), "\(logged)")
        // The refusal is in the meeting history (observers are not told, as in Chime).
        let history = session.eventAnalyticsController.getMeetingHistory().map(\.meetingHistoryEventName)
        #expect(history.last == .voiceFocusEnableFailed, "\(history)")
    }

    @Test func voiceFocusErrorsMapAsChimeDoes() {
        #expect(VoiceFocusError(from: 1) == .audioClientError)
        #expect(VoiceFocusError(from: 6) == .notInitialized)
        #expect(VoiceFocusError(from: 19) == .setParamFailed)
        #expect(VoiceFocusError(from: 42) == .other)
        #expect(VoiceFocusError.notInitialized.rawValue == 3 && "\(VoiceFocusError.audioClientNotStarted)" == "audioClientNotStarted")
    }
}
