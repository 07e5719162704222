#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing whole WAV files of 16-bit PCM.
///
/// Reading accepts integer PCM of 8, 16, 24 and 32 bits, IEEE float of 32 and 64 bits, and the same inside
/// WAVE_FORMAT_EXTENSIBLE, converting everything to Int16 (rounded, clipped). Unknown chunks are skipped. A `data`
/// chunk longer than the file (a recorder that died before fixing its sizes) is read up to the last whole sample.
public enum WAVFile {
    /// Reads a WAV file into its format and interleaved samples.
    public static func read(contentsOf path: String) throws(WAVError) -> (format: AudioFormat, samples: [Int16]) {
        try decode(readBytes(path))
    }

    /// Parses WAV bytes into their format and interleaved samples.
    public static func decode(_ bytes: [UInt8]) throws(WAVError) -> (format: AudioFormat, samples: [Int16]) {
        guard bytes.count >= 12 else { throw bytes.count >= 4 && !bytes.starts(with: riff) ? .notWAV : .truncated("RIFF header") }
        guard bytes.starts(with: riff), Array(bytes[8..<12]) == wave else { throw .notWAV }
        var encoding: Encoding?
        var data: Range<Int>?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = Array(bytes[offset..<offset + 4])
            let size = Int(readUInt32(bytes, offset + 4))
            let body = offset + 8
            if id == Array("fmt ".utf8) {
                guard body + size <= bytes.count else { throw .truncated("format chunk") }
                encoding = try Encoding(parsing: bytes[body..<body + size])
            } else if id == Array("data".utf8), data == nil {
                data = body..<min(bytes.count, body + size)
            }
            // Chunks are padded to an even length.
            let next = body + size + (size & 1)
            guard next > offset, next <= bytes.count else { break }
            offset = next
        }
        guard let encoding else { throw .missingChunk("fmt ") }
        guard let data else { throw .missingChunk("data") }
        return (encoding.format, encoding.convert(bytes[data]))
    }

    /// The bytes of a canonical 44-byte-header WAV file of 16-bit PCM.
    public static func encode(format: AudioFormat, samples: [Int16]) -> [UInt8] {
        var bytes = header(format: format, dataBytes: UInt32(clamping: samples.count * 2))
        bytes.reserveCapacity(bytes.count + samples.count * 2)
        for sample in samples {
            let value = UInt16(bitPattern: sample)
            bytes.append(UInt8(value & 0xFF))
            bytes.append(UInt8(value >> 8))
        }
        return bytes
    }

    /// Writes a whole 16-bit PCM WAV file, replacing any file at `path`.
    public static func write(format: AudioFormat, samples: [Int16], to path: String) throws(WAVError) {
        let writer = try WAVWriter(path: path, format: format)
        try writer.append(samples: samples)
        try writer.close()
    }

    static let riff = Array("RIFF".utf8)
    static let wave = Array("WAVE".utf8)
    static let headerLength = 44

    /// The canonical header for 16-bit PCM with `dataBytes` of samples.
    static func header(format: AudioFormat, dataBytes: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength)
        func append32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
        func append16(_ value: UInt16) { bytes.append(UInt8(value & 0xFF)); bytes.append(UInt8(value >> 8)) }
        let blockAlign = UInt16(format.channels * 2)
        bytes += riff
        append32(dataBytes &+ 36)
        bytes += wave
        bytes += Array("fmt ".utf8)
        append32(16)
        append16(1)
        append16(UInt16(format.channels))
        append32(UInt32(format.sampleRate))
        append32(UInt32(format.sampleRate) * UInt32(blockAlign))
        append16(blockAlign)
        append16(16)
        bytes += Array("data".utf8)
        append32(dataBytes)
        return bytes
    }

    static func readUInt32(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int) -> UInt32 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[bytes.index(start, offsetBy: index)]) << UInt32(8 * index) }
        return value
    }

    static func readUInt16(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int) -> UInt16 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return UInt16(bytes[start]) | UInt16(bytes[bytes.index(after: start)]) << 8
    }

    private static func readBytes(_ path: String) throws(WAVError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        defer { _ = systemClose(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }

    /// What the format chunk says, reduced to what conversion needs.
    private struct Encoding {
        var format: AudioFormat
        var isFloat: Bool
        var bytesPerSample: Int

        // The GUID of KSDATAFORMAT_SUBTYPE_PCM/IEEE_FLOAT after its first two bytes (which hold the format tag).
        private static let subformatTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

        init(parsing chunk: ArraySlice<UInt8>) throws(WAVError) {
            guard chunk.count >= 16 else { throw .truncated("format chunk shorter than 16 bytes") }
            var tag = readUInt16(chunk, 0)
            let channels = Int(readUInt16(chunk, 2))
            let sampleRate = Int(readUInt32(chunk, 4))
            let bits = Int(readUInt16(chunk, 14))
            if tag == 0xFFFE {
                guard chunk.count >= 40 else { throw .truncated("extensible format chunk shorter than 40 bytes") }
                let subformat = chunk.dropFirst(24).prefix(16)
                guard Array(subformat.dropFirst(2)) == Self.subformatTail else { throw .unsupportedEncoding(formatTag: tag, bitsPerSample: bits) }
                tag = readUInt16(subformat, 0)
            }
            guard (1...8).contains(channels) else { throw .invalidFormat("\(channels) channels") }
            guard (1...768_000).contains(sampleRate) else { throw .invalidFormat("sample rate \(sampleRate)") }
            switch (tag, bits) {
            case (1, 8), (1, 16), (1, 24), (1, 32): isFloat = false
            case (3, 32), (3, 64): isFloat = true
            default: throw .unsupportedEncoding(formatTag: tag, bitsPerSample: bits)
            }
            format = AudioFormat(sampleRate: sampleRate, channels: channels)
            bytesPerSample = bits / 8
        }

        func convert(_ data: ArraySlice<UInt8>) -> [Int16] {
            let count = data.count / (bytesPerSample * format.channels) * format.channels
            var samples = [Int16](repeating: 0, count: count)
            data.withUnsafeBufferPointer { raw in
                for index in 0..<count {
                    let at = index * bytesPerSample
                    samples[index] = sample(raw, at)
                }
            }
            return samples
        }

        private func sample(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int16 {
            var bits: UInt64 = 0
            for index in 0..<bytesPerSample { bits |= UInt64(raw[at + index]) << UInt64(8 * index) }
            switch (isFloat, bytesPerSample) {
            case (false, 1): return Int16(Int(bits) - 128) << 8
            case (false, 2): return Int16(truncatingIfNeeded: bits)
            case (false, 3): return Self.narrow(Int(Int32(bitPattern: UInt32(bits) << 8) >> 8), shift: 8)
            case (false, _): return Self.narrow(Int(Int32(truncatingIfNeeded: bits)), shift: 16)
            case (true, 4): return AudioFrame.clip(Float(bitPattern: UInt32(bits)) * Float(Int16.max))
            case (true, _): return AudioFrame.clip(Float(Double(bitPattern: bits) * Double(Int16.max)))
            }
        }

        // Rounds a wider integer sample to 16 bits (round half up, clipped at the top).
        private static func narrow(_ value: Int, shift: Int) -> Int16 {
            Int16(clamping: (value + (1 << (shift - 1))) >> shift)
        }
    }
}
