import Carillon
import CarillonCodecs
import Foundation
import Testing

/// Real sound through a real server on 127.0.0.1: SDK sessions capture tones from virtual microphones, the server
/// mixes, and each session records what it hears.
@Suite(.timeLimit(.minutes(2)))
struct AudioEndToEndTests {
    let tones: [String: Double] = ["alice": 440, "bob": 660, "carol": 880]

    /// Power of each tone in a recording, in dB relative to the strongest of them.
    func tonePowers(_ path: String) throws -> [Double: Double] {
        let (format, interleaved) = try WAVFile.read(contentsOf: path)
        // The default audio mode is stereo: analyse one channel's worth (interleaved samples would halve frequencies).
        let samples = AudioFrame(format: format, samples: interleaved).monoDownmix().samples
        // Skip the first second: joins, jitter-buffer start and the mixer's speaker selection.
        let steady = Array(samples.dropFirst(format.sampleRate))
        let powers = tones.values.map { ($0, FrequencyAnalysis.goertzelPower(samples: steady, sampleRate: format.sampleRate,
                                                                           frequency: $0)) }
        let strongest = powers.map(\.1).max() ?? 1
        return Dictionary(uniqueKeysWithValues: powers.map { ($0.0, 10 * log10(max($0.1, 1e-20) / max(strongest, 1e-20))) })
    }

    @Test func eachAttendeeHearsTheOthersTonesAndNotItsOwn() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var sessions: [(name: String, session: DefaultMeetingSession, probe: SessionProbe, recording: String)] = []
        for name in tones.keys.sorted() {
            let configuration = try await harness.configuration(meeting: meeting, name: name)
            let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .OFF))
            let devices = try #require(session.audioVideo as? DefaultAudioVideoFacade).deviceController
            let recording = directory.appendingPathComponent("\(name).wav").path
            session.audioVideo.chooseAudioDevice(mediaDevice: try devices.virtualDevices.addTone(frequency: tones[name]!))
            session.audioVideo.chooseAudioDevice(mediaDevice: devices.virtualDevices.addRecorder(path: recording))
            let probe = SessionProbe(name: name)
            session.audioVideo.addAudioVideoObserver(observer: probe)
            session.audioVideo.addRealtimeObserver(observer: probe)
            try session.audioVideo.start()
            sessions.append((name, session, probe, recording))
        }
        for entry in sessions { try await entry.probe.wait("\(entry.name) started") { $0.starts == [false] } }
        try await Task.sleep(for: .seconds(4))
        for entry in sessions { entry.session.audioVideo.stop() }
        for entry in sessions { try await entry.probe.wait("\(entry.name) stopped") { $0.stopStatus != nil } }
        for entry in sessions {
            let powers = try tonePowers(entry.recording)
            let own = tones[entry.name]!
            // Both other voices are there (within 15 dB of each other even when a loaded machine makes the jitter
            // buffer conceal a few frames), and the attendee's own voice is not (minus-self: only codec leakage).
            for (frequency, power) in powers where frequency != own {
                #expect(power > -20, "\(entry.name) should hear \(frequency) Hz: \(powers)")
            }
            #expect(powers[own]! < -25, "\(entry.name) should not hear its own \(own) Hz: \(powers)")
            print("tone powers heard by \(entry.name): \(powers.sorted { $0.key < $1.key })")
        }
    }
}
