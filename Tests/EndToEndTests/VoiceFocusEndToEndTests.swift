import Carillon
import CarillonCodecs
import CarillonRTC
import Foundation
import Testing

/// Voice Focus through a real server on 127.0.0.1: a bot speaks the corpus with keyboard noise, a listener records
/// it, once with Voice Focus off and once on.
@Suite(.timeLimit(.minutes(2)))
struct VoiceFocusEndToEndTests {
    static let libraryAvailable = (try? RNNoiseLibrary.shared.get()) != nil

    /// Plays `clip` from a talker into a new meeting and returns the listener's recording (mono).
    static func heard(_ clip: String, voiceFocus: Bool, harness: ServerHarness, directory: URL) async throws -> [Int16] {
        let meeting = try await harness.createMeeting()
        let listenerRecording = directory.appendingPathComponent("heard-\(voiceFocus).wav").path
        let listener = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "listener"),
                                             logger: ConsoleLogger(name: "listener", level: .OFF))
        let listenerDevices = try #require(listener.audioVideo as? DefaultAudioVideoFacade).deviceController.virtualDevices
        listener.audioVideo.chooseAudioDevice(mediaDevice: listenerDevices.addSilence())
        listener.audioVideo.chooseAudioDevice(mediaDevice: listenerDevices.addRecorder(path: listenerRecording))
        let listenerProbe = SessionProbe(name: "listener")
        listener.audioVideo.addAudioVideoObserver(observer: listenerProbe)
        try listener.audioVideo.start()
        try await listenerProbe.wait("listener started") { $0.starts == [false] }

        let talker = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "talker"),
                                           logger: ConsoleLogger(name: "talker", level: .OFF))
        let talkerDevices = try #require(talker.audioVideo as? DefaultAudioVideoFacade).deviceController.virtualDevices
        // Silence until Voice Focus is set, then the clip once: the whole clip goes through the same setting.
        talker.audioVideo.chooseAudioDevice(mediaDevice: talkerDevices.addSilence())
        talker.audioVideo.chooseAudioDevice(mediaDevice: talkerDevices.addNullOutput())
        let talkerProbe = SessionProbe(name: "talker")
        talker.audioVideo.addAudioVideoObserver(observer: talkerProbe)
        #expect(!talker.audioVideo.realtimeSetVoiceFocusEnabled(enabled: true), "Voice Focus before start")
        try talker.audioVideo.start()
        try await talkerProbe.wait("talker started") { $0.starts == [false] }
        #expect(!talker.audioVideo.realtimeIsVoiceFocusEnabled(), "Voice Focus is off when the session starts")
        if voiceFocus {
            #expect(talker.audioVideo.realtimeSetVoiceFocusEnabled(enabled: true))
            #expect(talker.audioVideo.realtimeIsVoiceFocusEnabled())
        }
        talker.audioVideo.chooseAudioDevice(mediaDevice: try talkerDevices.addWAVFile(path: clip, loops: false))
        // The clip lasts 8 s; a second more lets the last pause and the jitter buffer drain.
        try await Task.sleep(for: .seconds(9))
        talker.audioVideo.stop()
        listener.audioVideo.stop()
        try await talkerProbe.wait("talker stopped") { $0.stopStatus != nil }
        try await listenerProbe.wait("listener stopped") { $0.stopStatus != nil }
        let (format, samples) = try WAVFile.read(contentsOf: listenerRecording)
        let mono = AudioFrame(format: format, samples: samples).monoDownmix()
        #expect(mono.format.sampleRate == SpeechCorpus.sampleRate)
        return mono.samples
    }

    @Test(.enabled(if: libraryAvailable, "RNNoise is not installed (`make rnnoise` puts it in .deps/rnnoise)"))
    func voiceFocusTakesTheKeyboardOutOfThePauses() async throws {
        var random = SeededRandom(seed: 31)
        let corpus = SpeechCorpus(seconds: 8, using: &random)
        let noisy = corpus.noisy(corpus.noise(.keyboard, using: &random), snrDB: 5)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-voice-focus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("speech-keyboard.wav").path
        try WAVFile.write(format: .mono48k, samples: noisy, to: clip)

        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        var pauseLevels: [Bool: Double] = [:]
        for voiceFocus in [false, true] {
            let recording = try await Self.heard(clip, voiceFocus: voiceFocus, harness: harness, directory: directory)
            let delay = NoiseSuppressionScore.delay(of: recording, corpus: corpus, maximumLagSeconds: 5)
            // The whole clip must be in the recording, or its pauses would be measured on silence after it.
            #expect(delay + corpus.clean.count <= recording.count, "recording too short: delay \(delay), \(recording.count) samples")
            pauseLevels[voiceFocus] = NoiseSuppressionScore.pauseLevelDB(recording, corpus: corpus, delay: delay)
        }
        let off = try #require(pauseLevels[false]), on = try #require(pauseLevels[true])
        print("keyboard noise heard in the pauses: \(off) dBFS without Voice Focus, \(on) dBFS with it")
        #expect(off - on >= 15, "pauses at \(off) dBFS off, \(on) dBFS on")
    }
}
