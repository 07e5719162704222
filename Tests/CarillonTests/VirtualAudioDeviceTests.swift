import CarillonCodecs
import Foundation
import Testing

@testable import Carillon

@Suite struct VirtualAudioDeviceTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("carillon-\(UUID().uuidString)-\(name)").path
    }

    /// Writes `milliseconds` of a `frequency` tone in `format` with WAVWriter.
    private func writeToneFile(path: String, format: AudioFormat, frequency: Double, milliseconds: Int) throws {
        let writer = try WAVWriter(path: path, format: format)
        var tone = ToneGenerator(frequency: frequency, amplitude: 0.5, format: format)
        for _ in 0..<(milliseconds / 20) { try writer.append(tone.next(milliseconds: 20)) }
        try writer.close()
    }

    @Test func specificationsRegisterDevicesOnce() throws {
        let devices = VirtualAudioDevices(includingDefaults: false)
        let tone = try devices.add(specification: "tone:1000")
        #expect(tone.description == "Tone 1000 Hz - other")
        #expect(try devices.add(specification: "tone:1000") === tone)
        #expect(try devices.add(specification: "tone").label == "Tone 440 Hz")
        #expect(try devices.add(specification: "silence").label == "Silence")
        #expect(try devices.add(specification: "null").label == "Null output")
        #expect(try devices.add(specification: "record:/tmp/out.wav").endpoint == .virtual(key: "record:/tmp/out.wav", direction: .output))
        #expect(devices.devices.count == 5)
        #expect(throws: VirtualAudioDeviceError.invalidSpecification("speaker")) { try devices.add(specification: "speaker") }
        #expect(throws: VirtualAudioDeviceError.invalidSpecification("tone:loud")) { try devices.add(specification: "tone:loud") }
        #expect(throws: VirtualAudioDeviceError.invalidFrequency(30_000)) { try devices.add(specification: "tone:30000") }
        #expect(throws: VirtualAudioDeviceError.self) { try devices.add(specification: "wav:/nonexistent/file.wav") }
        #expect(throws: VirtualAudioDeviceError.wrongDirection("Tone 1000 Hz")) { try devices.openOutput(tone, format: .mono48k) }
        devices.remove(tone)
        #expect(throws: VirtualAudioDeviceError.unknownDevice("Tone 1000 Hz")) { try devices.openInput(tone, format: .mono48k) }
    }

    @Test func wavSourcePlaysTheFileConvertedThenSilence() throws {
        let path = temporaryPath("in.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 44.1 kHz stereo in, 48 kHz mono out: resampled and downmixed.
        try writeToneFile(path: path, format: AudioFormat(sampleRate: 44_100, channels: 2), frequency: 1000, milliseconds: 1000)
        let devices = VirtualAudioDevices(includingDefaults: false)
        let device = try devices.add(specification: "wav:\(path)")
        var source = try devices.openInput(device, format: .mono48k)
        let frames = (0..<75).map { _ in source.read(frameMilliseconds: 20) }
        #expect(frames.allSatisfy { $0.format == .mono48k && $0.frameCount == 960 })
        let audible = frames.filter { AudioLevel.rmsDBov($0) > -40 }.count
        #expect((49...51).contains(audible))
        let played = frames[5..<45].flatMap(\.samples)
        #expect(FrequencyAnalysis.dominantFrequency(samples: played, sampleRate: 48_000, candidates: [500, 800, 1000, 1200, 2000]) == 1000)
        #expect(FrequencyAnalysis.powerShareDB(samples: played, sampleRate: 48_000, frequency: 1000) > -1)
        #expect(frames[55...].allSatisfy { $0.isSilent })
        #expect((source as? WAVFileAudioSource)?.isFinished == true)
    }

    @Test func loopingWAVSourceStartsAgain() throws {
        let path = temporaryPath("loop.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try writeToneFile(path: path, format: .mono16k, frequency: 500, milliseconds: 200)
        let devices = VirtualAudioDevices(includingDefaults: false)
        let device = try devices.addWAVFile(path: path, loops: true)
        #expect(device.label == "WAV file \(path) (looping)")
        var source = try devices.openInput(device, format: .stereo48k)
        let frames = (0..<50).map { _ in source.read(frameMilliseconds: 20) }
        #expect(frames.allSatisfy { $0.format == .stereo48k && $0.samples.count == 1920 })
        // A second past the file's 200 ms end the tone is still there.
        let late = frames[40...].flatMap(\.samples)
        #expect(AudioLevel.rmsDBov(late) > -12)
        #expect(FrequencyAnalysis.dominantFrequency(samples: AudioFrame(format: .stereo48k, samples: late).monoDownmix().samples,
                                                    sampleRate: 48_000, candidates: [250, 500, 1000]) == 500)
    }

    @Test func recorderWritesWhatTheSessionPlays() throws {
        let path = temporaryPath("out.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let devices = VirtualAudioDevices(includingDefaults: false)
        let device = devices.addRecorder(path: path)
        #expect(device.description == "WAV recorder \(path) - other")
        let sink = try devices.openOutput(device, format: .stereo48k)
        var tone = ToneGenerator(frequency: 750, amplitude: 0.3, format: .stereo48k)
        for _ in 0..<75 { sink.write(tone.next(milliseconds: 20)) }
        // A frame in another format is converted, not dropped: 20 ms more.
        sink.write(AudioFrame.silence(format: .mono16k, milliseconds: 20))
        sink.close()
        let recording = try WAVFile.read(contentsOf: path)
        #expect(recording.format == .stereo48k)
        #expect(recording.samples.count / 2 * 1000 / 48_000 == 1520)
        let head = AudioFrame(format: .stereo48k, samples: Array(recording.samples[0..<96_000]))
        #expect(FrequencyAnalysis.dominantFrequency(head, candidates: [500, 750, 1000]) == 750)
    }

    @Test func appMadeDevicesOpenThroughTheirFactory() throws {
        struct Counter: AudioInputSource {
            let format: AudioFormat
            var reads = 0
            mutating func read(frameMilliseconds: Int) -> AudioFrame {
                reads += 1
                return AudioFrame(format: format, samples: [Int16](repeating: Int16(reads), count: format.interleavedSampleCount(milliseconds: frameMilliseconds)))
            }
        }
        let devices = VirtualAudioDevices(includingDefaults: false)
        let device = devices.addInput(label: "Synth", type: .audioHandset) { Counter(format: $0) }
        #expect(device.description == "Synth - audioHandset")
        var source = try devices.openInput(device, format: .mono16k)
        _ = source.read(frameMilliseconds: 20)
        #expect(source.read(frameMilliseconds: 10).samples == [Int16](repeating: 2, count: 160))
    }
}
