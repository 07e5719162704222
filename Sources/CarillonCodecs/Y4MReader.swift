#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the pictures of a YUV4MPEG2 (`.y4m`) stream, from a file or from bytes in memory.
///
/// Accepts 8-bit 4:2:0 streams (`C420`, `C420jpeg`, `C420paligned`, `C420mpeg2` or no `C` tag), any size, odd
/// included; other colour spaces are a typed ``Y4MError/unsupportedColorSpace(_:)`` at open. `FRAME` lines may carry
/// parameters, which are skipped. A file is read frame by frame with positioned reads, so a long file costs one
/// picture of memory; looping is the caller's business (``rewind()`` at the end).
///
/// Cost: one allocation and one read of 1.5 bytes per pixel per frame. Threading: not thread-safe; one owner reads.
/// Deinit closes the file.
public final class Y4MReader {
    /// The stream header.
    public let header: Y4MHeader
    /// How many frames ``nextFrame()`` has returned since the start or the last ``rewind()``.
    public private(set) var framesRead = 0

    private enum Source {
        case memory([UInt8])
        case file(descriptor: Int32, path: String)
    }

    private let source: Source
    private let firstFrameOffset: Int
    private var offset: Int
    // Longest header or FRAME line accepted.
    private static let maximumLine = 4096

    /// Opens a file and reads its header.
    public convenience init(contentsOf path: String) throws(Y4MError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        do {
            try self.init(source: .file(descriptor: descriptor, path: path))
        } catch {
            _ = systemClose(descriptor)
            throw error
        }
    }

    /// Reads a stream held in memory.
    public convenience init(bytes: [UInt8]) throws(Y4MError) {
        try self.init(source: .memory(bytes))
    }

    // Throws before any stored property is set, so a failed open never runs deinit (the caller closes the file).
    private init(source: Source) throws(Y4MError) {
        let start = try Self.read(source, at: 0, count: Self.maximumLine)
        guard start.starts(with: Array("YUV4MPEG2".utf8)) else { throw .notY4M }
        guard let end = start.firstIndex(of: UInt8(ascii: "\n")) else { throw .invalidHeader("no end of line in the first \(Self.maximumLine) bytes") }
        header = try Y4MHeader(parsing: start[..<end])
        self.source = source
        firstFrameOffset = end + 1
        offset = end + 1
    }

    deinit {
        if case .file(let descriptor, _) = source { _ = systemClose(descriptor) }
    }

    /// The next picture, or nil at the end of the stream. Throws for a missing `FRAME` line or a truncated picture.
    public func nextFrame() throws(Y4MError) -> I420Image? {
        let line = try Self.read(source, at: offset, count: min(Self.maximumLine, 6 + 256))
        if line.isEmpty { return nil }
        guard line.starts(with: Array("FRAME".utf8)), let end = line.firstIndex(of: UInt8(ascii: "\n")),
              end == 5 || line[5] == UInt8(ascii: " ")
        else { throw .invalidFrameMarker(frame: framesRead) }
        let count = header.frameByteCount
        let pixels = try Self.read(source, at: offset + end + 1, count: count)
        guard pixels.count == count else { throw .truncatedFrame(frame: framesRead) }
        let image: I420Image
        do {
            image = try I420Image(width: header.width, height: header.height, storage: pixels)
        } catch {
            // The header's size was checked when it was parsed, and the byte count matches it.
            preconditionFailure("Y4M frame of a checked size refused: \(error)")
        }
        offset += end + 1 + count
        framesRead += 1
        return image
    }

    /// Goes back to the first frame.
    public func rewind() {
        offset = firstFrameOffset
        framesRead = 0
    }

    /// Up to `count` bytes at `offset`; fewer at the end of the stream.
    private static func read(_ source: Source, at offset: Int, count: Int) throws(Y4MError) -> [UInt8] {
        switch source {
        case .memory(let bytes):
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        case .file(let descriptor, let path):
            var failure: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var done = 0
                while done < count {
                    let got = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
                    if got < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        break
                    }
                    if got == 0 { break }
                    done += got
                }
                initialized = done
            }
            if failure != 0 { throw .io(operation: "read", path: path, errno: failure) }
            return bytes
        }
    }
}
