@testable import CarillonCodecs
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// WAV writing and reading: round trips, other sample encodings, bad files.
@Suite struct WAVFileTests {
    /// A fresh path under /tmp for this process.
    static func temporaryPath(_ name: String) -> String { "/tmp/carillon-wav-\(getpid())-\(name).wav" }

    @Test(arguments: [AudioFormat.mono16k, .stereo48k, .mono48k, AudioFormat(sampleRate: 16_000, channels: 2)])
    func writerRoundTrips(format: AudioFormat) throws {
        let path = Self.temporaryPath("roundtrip-\(format.sampleRate)-\(format.channels)")
        defer { unlink(path) }
        let frames = TestSignals.toneFrames(523, amplitude: 0.8, format: format, count: 7)
        let writer = try WAVWriter(path: path, format: format)
        for (index, frame) in frames.enumerated() {
            try writer.append(frame)
            // Sizes are patched after every append, so a reader sees a whole file at any moment.
            let partial = try WAVFile.read(contentsOf: path)
            #expect(partial.samples == TestSignals.joined(Array(frames[0...index])))
        }
        #expect(writer.frameCount == 7 * format.samplesPerFrame(milliseconds: 20))
        #expect(throws: WAVError.formatMismatch(expected: format, got: AudioFormat(sampleRate: 8_000, channels: 1))) {
            try writer.append(.silence(format: AudioFormat(sampleRate: 8_000, channels: 1), milliseconds: 20))
        }
        try writer.close()
        #expect(throws: WAVError.closed) { try writer.close() }
        #expect(throws: WAVError.closed) { try writer.append(frames[0]) }
        let read = try WAVFile.read(contentsOf: path)
        #expect(read.format == format)
        #expect(read.samples == TestSignals.joined(frames))
        let bytes = WAVFile.encode(format: format, samples: read.samples)
        #expect(bytes.count == 44 + read.samples.count * 2)
        #expect(try WAVFile.decode(bytes).samples == read.samples)
    }

    @Test func readsOtherEncodings() throws {
        // 24-bit PCM: 0x7FFFFF, -0x800000, 0x000080 (rounds up to 1), 0x123456.
        let pcm24: [UInt8] = [0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00, 0x56, 0x34, 0x12]
        let read24 = try WAVFile.decode(Self.wav(tag: 1, channels: 1, rate: 8_000, bits: 24, data: pcm24))
        #expect(read24.format == AudioFormat(sampleRate: 8_000, channels: 1))
        #expect(read24.samples == [Int16.max, Int16.min, 1, 0x1234])
        // 32-bit float, stereo: 0.5, -1, 1.5 (clips), 0.
        let floats: [Float] = [0.5, -1, 1.5, 0]
        let read32f = try WAVFile.decode(Self.wav(tag: 3, channels: 2, rate: 44_100, bits: 32, data: floats.flatMap { Self.bytes($0.bitPattern) }))
        #expect(read32f.format == AudioFormat(sampleRate: 44_100, channels: 2))
        #expect(read32f.samples == [16_384, -32_767, Int16.max, 0])
        // 8-bit unsigned.
        let read8 = try WAVFile.decode(Self.wav(tag: 1, channels: 1, rate: 8_000, bits: 8, data: [0, 128, 255, 129]))
        #expect(read8.samples == [Int16.min, 0, 127 << 8, 256])
        // 32-bit integer inside WAVE_FORMAT_EXTENSIBLE, with a LIST chunk of odd length before the data.
        let ints: [Int32] = [Int32.max, Int32.min, 0x0001_8000, -0x0001_8000]
        let data32 = ints.flatMap { Self.bytes(UInt32(bitPattern: $0)) }
        let extensible = Self.wav(tag: 0xFFFE, channels: 1, rate: 48_000, bits: 32, data: data32, subformat: 1, junk: [1, 2, 3])
        #expect(try WAVFile.decode(extensible).samples == [Int16.max, Int16.min, 2, -1])
        // Float inside WAVE_FORMAT_EXTENSIBLE.
        let extensibleFloat = Self.wav(tag: 0xFFFE, channels: 1, rate: 48_000, bits: 32, data: Self.bytes(Float(-0.25).bitPattern), subformat: 3)
        #expect(try WAVFile.decode(extensibleFloat).samples == [-8192])
        // A data size larger than the file (a recorder that died) reads the whole samples present.
        var cut = Self.wav(tag: 1, channels: 2, rate: 8_000, bits: 16, data: [1, 0, 2, 0, 3, 0, 4, 0])
        cut.removeLast(3)
        #expect(try WAVFile.decode(cut).samples == [1, 2])
    }

    @Test func badInputGivesTypedErrors() {
        let valid = WAVFile.encode(format: .mono16k, samples: [1, 2, 3])
        #expect(throws: WAVError.truncated("RIFF header")) { try WAVFile.decode(Array(valid.prefix(10))) }
        #expect(throws: WAVError.truncated("format chunk")) { try WAVFile.decode(Array(valid.prefix(30))) }
        #expect(throws: WAVError.notWAV) { try WAVFile.decode(Array("RIFX".utf8) + valid.dropFirst(4)) }
        #expect(throws: WAVError.notWAV) { try WAVFile.decode(Array("<html><body>hello</body></html>".utf8)) }
        #expect(throws: WAVError.unsupportedEncoding(formatTag: 2, bitsPerSample: 4)) {
            try WAVFile.decode(Self.wav(tag: 2, channels: 1, rate: 8_000, bits: 4, data: [0, 0]))
        }
        #expect(throws: WAVError.unsupportedEncoding(formatTag: 1, bitsPerSample: 12)) {
            try WAVFile.decode(Self.wav(tag: 1, channels: 1, rate: 8_000, bits: 12, data: [0, 0]))
        }
        #expect(throws: WAVError.invalidFormat("0 channels")) {
            try WAVFile.decode(Self.wav(tag: 1, channels: 0, rate: 8_000, bits: 16, data: [0, 0]))
        }
        #expect(throws: WAVError.missingChunk("data")) { try WAVFile.decode(Array(valid.prefix(36))) }
        #expect(throws: WAVError.io(operation: "open", path: "/nonexistent/x.wav", errno: ENOENT)) {
            try WAVFile.read(contentsOf: "/nonexistent/x.wav")
        }
        #expect(throws: WAVError.self) { try WAVWriter(path: "/nonexistent/dir/x.wav", format: .mono16k) }
    }

    @Test func mutatedFilesNeverCrash() throws {
        let tone = TestSignals.joined(TestSignals.toneFrames(440, format: .stereo48k, count: 1, milliseconds: 5))
        let seeds = [
            WAVFile.encode(format: .stereo48k, samples: tone),
            Self.wav(tag: 0xFFFE, channels: 2, rate: 48_000, bits: 24, data: [UInt8](repeating: 7, count: 60), subformat: 1, junk: [9]),
        ]
        var random = SeededGenerator(seed: 2024)
        var decoded = 0
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int(random.next() % 4 + 1) {
                let index = Int(random.next() % UInt64(bytes.count))
                // Favour the header, where the interesting fields are.
                let position = random.next() % 2 == 0 ? index % 80 : index
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))) }
            do {
                let result = try WAVFile.decode(bytes)
                #expect(result.samples.count % result.format.channels == 0)
                #expect(result.samples.count <= bytes.count)
                decoded += 1
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        // Most single-byte changes land in sample data and still decode.
        #expect(decoded > 1000, "\(decoded) of 4000 decoded")
    }

    /// A WAV file with a format chunk of 16 bytes (or 40 for WAVE_FORMAT_EXTENSIBLE) and an optional odd-sized chunk.
    static func wav(tag: UInt16, channels: UInt16, rate: UInt32, bits: UInt16, data: [UInt8], subformat: UInt16 = 1, junk: [UInt8]? = nil) -> [UInt8] {
        var format: [UInt8] = bytes(tag) + bytes(channels) + bytes(rate)
        let blockAlign = channels * bits / 8
        format += bytes(rate * UInt32(blockAlign)) + bytes(blockAlign) + bytes(bits)
        if tag == 0xFFFE {
            format += bytes(UInt16(22)) + bytes(bits) + bytes(UInt32(channels == 2 ? 3 : 4))
            format += bytes(subformat) + [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        var body = Array("WAVE".utf8) + Array("fmt ".utf8) + bytes(UInt32(format.count)) + format
        if let junk {
            body += Array("LIST".utf8) + bytes(UInt32(junk.count)) + junk + (junk.count % 2 == 1 ? [0] : [])
        }
        body += Array("data".utf8) + bytes(UInt32(data.count)) + data
        return Array("RIFF".utf8) + bytes(UInt32(body.count)) + body
    }

    static func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func bytes(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
