import Carillon
import CarillonCodecs
import Foundation
import Testing

/// SDK sessions that each speak a tone from a virtual microphone and record what they hear, with every observer a
/// test may look at: the shared set-up of the audio end-to-end tests.
struct ToneMeeting {
    struct Attendee {
        let name: String
        let session: DefaultMeetingSession
        let probe: SessionProbe
        let recording: String
    }

    let attendees: [Attendee]
    /// Where the recordings are; removed by ``remove()``.
    let directory: URL

    /// Joins `tones` (name → Hz) to `meeting`, each attendee created with its `capabilities` if any, and waits until
    /// every session has started.
    static func join(_ tones: [String: Double], harness: ServerHarness,
                     meeting: (response: CreateMeetingResponse, meetingId: String),
                     capabilities: [String: [String: String]] = [:]) async throws -> ToneMeeting {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var attendees: [Attendee] = []
        for name in tones.keys.sorted() {
            let configuration = try await harness.configuration(meeting: meeting, name: name,
                                                                capabilities: capabilities[name])
            let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .OFF))
            let devices = try #require(session.audioVideo as? DefaultAudioVideoFacade).deviceController
            let recording = directory.appendingPathComponent("\(name).wav").path
            session.audioVideo.chooseAudioDevice(mediaDevice: try devices.virtualDevices.addTone(frequency: tones[name]!))
            session.audioVideo.chooseAudioDevice(mediaDevice: devices.virtualDevices.addRecorder(path: recording))
            let probe = SessionProbe(name: name)
            session.audioVideo.addAudioVideoObserver(observer: probe)
            session.audioVideo.addRealtimeObserver(observer: probe)
            session.audioVideo.addMetricsObserver(observer: probe)
            session.audioVideo.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: probe)
            try session.audioVideo.start()
            attendees.append(Attendee(name: name, session: session, probe: probe, recording: recording))
        }
        for attendee in attendees { try await attendee.probe.wait("\(attendee.name) started") { $0.starts == [false] } }
        return ToneMeeting(attendees: attendees, directory: directory)
    }

    /// Stops every session and waits until each has stopped (the recordings are complete then).
    func stop() async throws {
        for attendee in attendees { attendee.session.audioVideo.stop() }
        for attendee in attendees { try await attendee.probe.wait("\(attendee.name) stopped") { $0.stopStatus != nil } }
    }

    /// Deletes the recordings.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A recording after its first second (joins, jitter-buffer start, speaker selection), as mono samples (the
    /// default audio mode is stereo; interleaved samples would halve the frequencies).
    static func steadySamples(_ path: String) throws -> (samples: [Int16], sampleRate: Int) {
        let (format, interleaved) = try WAVFile.read(contentsOf: path)
        let mono = AudioFrame(format: format, samples: interleaved).monoDownmix().samples
        return (Array(mono.dropFirst(format.sampleRate)), format.sampleRate)
    }

    /// Power of each of `frequencies` in the steady part of a recording, in dB relative to the strongest of them.
    static func tonePowers(_ path: String, _ frequencies: [Double]) throws -> [Double: Double] {
        let (samples, rate) = try steadySamples(path)
        let powers = frequencies.map { ($0, FrequencyAnalysis.goertzelPower(samples: samples, sampleRate: rate, frequency: $0)) }
        let strongest = powers.map(\.1).max() ?? 1
        return Dictionary(uniqueKeysWithValues: powers.map { ($0.0, 10 * log10(max($0.1, 1e-20) / max(strongest, 1e-20))) })
    }
}
