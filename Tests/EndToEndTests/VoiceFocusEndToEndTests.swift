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
    static func heard(_ clip: String, clipFrames: Int, voiceFocus: Bool, harness: ServerHarness,
                      directory: URL) async throws -> (recording: [Int16], clipStartsAfter: Int) {
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
        // The clip reaches the listener after it is chosen: once the recording has grown by the clip and a second
        // more (the path, the jitter buffer), it holds all of it, however slowly a loaded machine runs the sessions.
        let recordedBefore = try Self.recordedFrames(listenerRecording)
        talker.audioVideo.chooseAudioDevice(mediaDevice: try talkerDevices.addWAVFile(path: clip, loops: false))
        let target = recordedBefore + clipFrames + SpeechCorpus.sampleRate
        let deadline = ContinuousClock.now + .seconds(45)
        while try Self.recordedFrames(listenerRecording) < target {
            guard ContinuousClock.now < deadline else {
                Issue.record("the listener recorded \(try Self.recordedFrames(listenerRecording)) of \(target) frames in 45 s")
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        talker.audioVideo.stop()
        listener.audioVideo.stop()
        try await talkerProbe.wait("talker stopped") { $0.stopStatus != nil }
        try await listenerProbe.wait("listener stopped") { $0.stopStatus != nil }
        let (format, samples) = try WAVFile.read(contentsOf: listenerRecording)
        let mono = AudioFrame(format: format, samples: samples).monoDownmix()
        #expect(mono.format.sampleRate == SpeechCorpus.sampleRate)
        return (mono.samples, recordedBefore)
    }

    /// Sample frames in a WAV recording so far (the recorder keeps the header's sizes current); 0 before it exists.
    /// Read from the file's size and its header's channel count, not by reading the samples: the test polls it
    /// while the sessions run, and must not take their CPU.
    static func recordedFrames(_ path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 44) ?? Data()
        guard header.count == 44 else { return 0 }
        let channels = max(1, Int(header[22]) | Int(header[23]) << 8)
        let size = try handle.seekToEnd()
        return (Int(size) - 44) / (2 * channels)
    }

    /// Quarantined. The stall once seen here was the media clocks losing time: the mixer and the client restarted
    /// their 20 ms grid whenever a tick came over 100 ms late, so on a loaded machine the mix ran ~10 % slower than
    /// real time and the listener's buffers ran dry (fixed: ``MediaFrameClock`` catches up). With RNNoise on its int8
    /// weights it passes idle and beside three busy loops (4 of 4); beside six (load 6 on two cores) this process
    /// falls over 500 ms behind at times, talker and mixer skip the stall (timestamps jump 26 frames), and the pauses
    /// after the skip are measured out of place (1 of 3 passes). Run it with `CARILLON_QUARANTINED_TESTS=1`.
    @Test(.enabled(if: libraryAvailable, "RNNoise is not installed (`make rnnoise` puts it in .deps/rnnoise)"),
          .enabled(if: ProcessInfo.processInfo.environment["CARILLON_QUARANTINED_TESTS"] != nil,
                   "quarantined: flaky under load, see issue 13"))
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
            let (recording, before) = try await Self.heard(clip, clipFrames: noisy.count, voiceFocus: voiceFocus,
                                                           harness: harness, directory: directory)
            // The clip starts in the recording after what was recorded before it was chosen, within the path's delay.
            let rate = Double(SpeechCorpus.sampleRate)
            let delay = NoiseSuppressionScore.delay(of: recording, corpus: corpus, minimumLagSeconds: Double(before) / rate,
                                                    maximumLagSeconds: Double(before) / rate + 1)
            // The whole clip must be in the recording, or its pauses would be measured on silence after it.
            #expect(delay + corpus.clean.count <= recording.count, "recording too short: delay \(delay), \(recording.count) samples")
            // The jitter buffer adds and drops 20 ms frames, and a loaded machine's stalls drop more: each pause is
            // measured where the phrase before it is heard, with 50 ms more margin on each side.
            pauseLevels[voiceFocus] = NoiseSuppressionScore.pauseLevelDB(recording, corpus: corpus, delay: delay,
                                                                         extraMargin: SpeechCorpus.sampleRate / 20,
                                                                         driftSeconds: 0.3)
            // Quiet pauses mean nothing if the speech is gone too (a stalled path leaves the recording silent, and
            // its pauses then measure digital silence): the phrases must be heard near their level (-26 dBFS).
            var energy = 0.0, count = 0
            for phrase in corpus.phrases {
                for index in phrase where index + delay < recording.count {
                    energy += Double(recording[index + delay]) * Double(recording[index + delay])
                    count += 1
                }
            }
            let speech = 10 * log10(max(energy, 1) / Double(max(count, 1)) / (Double(Int16.max) * Double(Int16.max)))
            #expect(speech >= -32, "speech heard at \(speech) dBFS with Voice Focus \(voiceFocus ? "on" : "off")")
        }
        let off = try #require(pauseLevels[false]), on = try #require(pauseLevels[true])
        print("keyboard noise heard in the pauses: \(off) dBFS without Voice Focus, \(on) dBFS with it")
        #expect(off - on >= 15, "pauses at \(off) dBFS off, \(on) dBFS on")
    }
}
