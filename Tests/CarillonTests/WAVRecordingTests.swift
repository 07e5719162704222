import CarillonCodecs
import Foundation
import Synchronization
import Testing

@testable import Carillon

/// `record:<path>`: one file across every opening of the output (reconnects), the closed time as silence, and a
/// header that is right after every frame.
@Suite struct WAVRecordingTests {
    /// A monotonic clock the test moves by hand.
    final class FakeClock: Sendable {
        let nanoseconds = Mutex<UInt64>(1_000_000_000)
        func advance(milliseconds: UInt64) { nanoseconds.withLock { $0 += milliseconds * 1_000_000 } }
        var read: @Sendable () -> UInt64 { { self.nanoseconds.withLock { $0 } } }
    }

    func temporaryPath() -> String {
        NSTemporaryDirectory() + "carillon-wav-recording-\(UUID().uuidString).wav"
    }

    /// 20 ms of one sample value, so each stretch of the file can be told apart.
    func frame(_ value: Int16, format: AudioFormat = .mono48k) -> AudioFrame {
        AudioFrame(format: format, samples: [Int16](repeating: value, count: format.interleavedSampleCount(milliseconds: 20)))
    }

    /// The RIFF and data sizes of the file's header, and the file's length.
    func sizes(_ path: String) throws -> (riff: Int, data: Int, length: Int) {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func uint32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        return (uint32(4), uint32(40), bytes.count)
    }

    @Test func theHeaderIsRightAfterEveryFrame() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = WAVRecording(path: path, clock: FakeClock().read)
        let sink = try recording.open(format: .mono48k, logger: nil)
        #expect(try sizes(path) == (36, 0, 44))
        for count in 1...3 {
            sink.write(frame(Int16(count)))
            // Nothing is closed: this is what a killed bot leaves.
            #expect(try sizes(path) == (36 + count * 1920, count * 1920, 44 + count * 1920))
            #expect(try WAVFileContents(path: path).samples.count == count * 960)
        }
    }

    @Test func aReopenedOutputAppendsAfterSilenceAsLongAsItWasClosed() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = FakeClock()
        let recording = WAVRecording(path: path, clock: clock.read)
        let first = try recording.open(format: .mono48k, logger: nil)
        for _ in 0..<5 { first.write(frame(100)) }
        first.close()
        // A reconnect: 1.25 s without an output.
        clock.advance(milliseconds: 1250)
        let second = try recording.open(format: .mono48k, logger: nil)
        for _ in 0..<3 { second.write(frame(200)) }
        second.close()
        let contents = try WAVFileContents(path: path)
        #expect(contents.format == .mono48k)
        #expect(contents.samples == [Int16](repeating: 100, count: 4800) + [Int16](repeating: 0, count: 60_000)
                + [Int16](repeating: 200, count: 2880))
        #expect(try sizes(path) == (36 + 67_680 * 2, 67_680 * 2, 44 + 67_680 * 2))
    }

    @Test func aVeryLongGapIsLeftOutAndLogged() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = FakeClock()
        let recording = WAVRecording(path: path, clock: clock.read)
        let first = try recording.open(format: .mono48k, logger: nil)
        first.write(frame(1))
        first.close()
        clock.advance(milliseconds: WAVRecording.longestGap / 1_000_000 + 1)
        let logger = RecordingLogger()
        let second = try recording.open(format: .mono48k, logger: logger)
        second.write(frame(2))
        second.close()
        #expect(try WAVFileContents(path: path).samples == [Int16](repeating: 1, count: 960) + [Int16](repeating: 2, count: 960))
        #expect(logger.messages(at: .ERROR) == ["\(path): the output was closed for 600.0 s; that gap is left out of the recording"])
    }

    @Test func theFirstOpeningStartsAFreshFileAndLaterFormatsAreConverted() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A file from an earlier run of the process is replaced, as before.
        try WAVFile.write(format: .mono16k, samples: [Int16](repeating: 9, count: 1600), to: path)
        let recording = WAVRecording(path: path, clock: FakeClock().read)
        let first = try recording.open(format: .mono48k, logger: nil)
        first.write(frame(7))
        first.close()
        // A session in another format goes on in the file's format.
        let second = try recording.open(format: .stereo48k, logger: nil)
        second.write(frame(0, format: .stereo48k))
        second.close()
        let contents = try WAVFileContents(path: path)
        #expect(contents.format == .mono48k)
        #expect(contents.samples.count == 1920)
        #expect(Array(contents.samples.prefix(960)) == [Int16](repeating: 7, count: 960))
    }

    @Test func appendingKeepsSamplesWhoseHeaderUpdateWasLostAndRefusesForeignFiles() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVWriter(path: path, format: .mono48k)
        try writer.append(samples: [1, 2, 3])
        try writer.close()
        // A kill between the samples and the header: three more samples and half of one, the header says three.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([4, 0, 5, 0, 6, 0, 7]))
        handle.closeFile()
        let again = try WAVWriter(appendingTo: path, format: .mono48k)
        #expect(again.frameCount == 6)
        try again.append(samples: [8])
        try again.close()
        #expect(try WAVFile.read(contentsOf: path).samples == [1, 2, 3, 4, 5, 6, 8])
        // Another format, or not a WAV this writer made: untouched.
        #expect(throws: WAVError.self) { try WAVWriter(appendingTo: path, format: .stereo48k) }
        #expect(try WAVFile.read(contentsOf: path).samples == [1, 2, 3, 4, 5, 6, 8])
    }

    @Test func theVirtualRecorderDeviceKeepsOneFileAcrossOpenings() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let devices = VirtualAudioDevices(includingDefaults: false)
        let device = devices.addRecorder(path: path)
        let first = try devices.openOutput(device, format: .mono48k)
        for _ in 0..<10 { first.write(frame(300)) }
        first.close()
        let second = try devices.openOutput(device, format: .mono48k)
        for _ in 0..<10 { second.write(frame(400)) }
        second.close()
        // The real clock: the gap is whatever passed between the two openings, written as silence.
        let samples = try WAVFileContents(path: path).samples
        #expect(Array(samples.prefix(9600)) == [Int16](repeating: 300, count: 9600))
        #expect(Array(samples.suffix(9600)) == [Int16](repeating: 400, count: 9600))
        #expect(samples.dropFirst(9600).dropLast(9600).allSatisfy { $0 == 0 })
    }
}
