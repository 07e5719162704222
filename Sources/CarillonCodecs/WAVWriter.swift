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
