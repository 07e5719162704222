#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams 16-bit PCM frames into a WAV file, for recording what a headless attendee hears.
///
/// The RIFF and data sizes in the header are rewritten after every append, so the file on disk is a valid WAV of
/// everything appended so far even if the process stops without calling ``close()`` (it costs two small positioned
/// writes per append). Threading: not thread-safe; one owner appends. Deinit closes the file if ``close()`` was not
/// called, ignoring errors.
public final class WAVWriter {
    /// Where the file is.
    public let path: String
    /// The format every appended frame must have.
    public let format: AudioFormat
    /// Samples per channel written so far.
    public var frameCount: Int { dataBytes / (2 * format.channels) }

    private var descriptor: Int32
    private var dataBytes = 0

    /// Creates (or truncates) the file and writes a header for no samples yet. `format` must have 1-8 channels.
    public init(path: String, format: AudioFormat) throws(WAVError) {
        guard (1...8).contains(format.channels), (1...768_000).contains(format.sampleRate) else {
            throw .invalidFormat("cannot write \(format)")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(operation: "create", path: path, errno: errno) }
        self.path = path
        self.format = format
        self.descriptor = descriptor
        try write(WAVFile.header(format: format, dataBytes: 0), at: 0)
    }

    /// Opens a file this writer made earlier and goes on after its samples; creates it (with a header for no
    /// samples) when there is none. An existing file must start with the 44-byte header this writer writes, for
    /// `format`, else ``WAVError/invalidFormat(_:)`` and the file is left untouched. The data size is taken from the
    /// file's length (whole sample frames), so samples written just before a kill, whose header update was lost,
    /// are kept; the header is corrected at once.
    public init(appendingTo path: String, format: AudioFormat) throws(WAVError) {
        guard (1...8).contains(format.channels), (1...768_000).contains(format.sampleRate) else {
            throw .invalidFormat("cannot write \(format)")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        self.path = path
        self.format = format
        self.descriptor = descriptor
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .io(operation: "stat", path: path, errno: errno) }
        let length = Int(status.st_size)
        if length > 0 {
            let expected = WAVFile.header(format: format, dataBytes: 0)
            var header = [UInt8](repeating: 0, count: WAVFile.headerLength)
            let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, $0.count, 0) }
            // Every byte but the two sizes (RIFF at 4, data at 40) must be what this writer writes for `format`.
            let sizes = Set(4..<8).union(40..<44)
            guard count == WAVFile.headerLength,
                  header.indices.allSatisfy({ sizes.contains($0) || header[$0] == expected[$0] })
            else {
                throw .invalidFormat("\(path) is not a \(format) WAV file this writer made; not appending to it")
            }
        }
        let frameBytes = 2 * format.channels
        let available = max(0, length - WAVFile.headerLength)
        dataBytes = min(available / frameBytes * frameBytes, Int(UInt32.max) - 36)
        try write(WAVFile.header(format: format, dataBytes: UInt32(dataBytes)), at: 0)
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Appends a frame and updates the header's sizes.
    public func append(_ frame: AudioFrame) throws(WAVError) {
        guard frame.format == format else { throw .formatMismatch(expected: format, got: frame.format) }
        try append(samples: frame.samples)
    }

    /// Appends interleaved samples in the file's format and updates the header's sizes.
    public func append(samples: [Int16]) throws(WAVError) {
        guard descriptor >= 0 else { throw .closed }
        guard samples.count % format.channels == 0 else {
            throw .invalidFormat("\(samples.count) samples do not fill whole \(format) sample frames")
        }
        let total = dataBytes + samples.count * 2
        guard total <= Int(UInt32.max) - 36 else { throw .tooLarge }
        let littleEndian = samples.map { $0.littleEndian }
        let offset = WAVFile.headerLength + dataBytes
        try check(littleEndian.withUnsafeBytes { write($0, at: offset) })
        dataBytes = total
        // RIFF size at 4 and data size at 40.
        try write(Self.uint32(UInt32(total + 36)), at: 4)
        try write(Self.uint32(UInt32(total)), at: 40)
    }

    /// Closes the file (the sizes are already right). Calling it again throws `.closed`.
    public func close() throws(WAVError) {
        guard descriptor >= 0 else { throw .closed }
        let result = systemClose(descriptor)
        descriptor = -1
        guard result == 0 else { throw .io(operation: "close", path: path, errno: errno) }
    }

    private static func uint32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }

    private func write(_ bytes: [UInt8], at offset: Int) throws(WAVError) {
        try check(bytes.withUnsafeBytes { write($0, at: offset) })
    }

    private func check(_ status: Int32) throws(WAVError) {
        guard status == 0 else { throw .io(operation: "write", path: path, errno: status) }
    }

    /// Writes all of `bytes` at `offset`; 0 or the errno of the failure.
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += count
        }
        return 0
    }
}
