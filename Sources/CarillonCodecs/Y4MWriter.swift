#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes pictures to a YUV4MPEG2 (`.y4m`) file: the header line at creation, then a `FRAME` line and the I420
/// bytes of each picture (e.g. `carillon join --video-out`, or a file for Chromium's fake capture).
///
/// Every append goes straight to the file, so what was written is a valid stream even if the process stops without
/// ``close()``. Cost: two `write` calls per frame, plus a compaction copy when the image has padded strides.
/// Threading: not thread-safe; one owner appends. Deinit closes the file if ``close()`` was not called, ignoring
/// errors.
public final class Y4MWriter {
    /// Where the file is.
    public let path: String
    /// The header written; every appended image must have its size.
    public let header: Y4MHeader
    /// Frames written so far.
    public private(set) var frameCount = 0

    private var descriptor: Int32
    private static let frameLine = Array("FRAME\n".utf8)

    /// Creates (or, with `replacing`, truncates) the file and writes `header`. Its colour space must be one of
    /// ``Y4MHeader/supportedColorSpaces`` or nil, and its size 1-``I420Image/maximumDimension`` each way. Without
    /// `replacing` an existing file is left as it is and the error is ``Y4MError/io(operation:path:errno:)`` with
    /// `EEXIST`, so a recorder never loses what an earlier file holds.
    public init(path: String, header: Y4MHeader, replacing: Bool = true) throws(Y4MError) {
        try Self.validate(header)
        let descriptor = open(path, O_WRONLY | O_CREAT | (replacing ? O_TRUNC : O_EXCL) | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(operation: "create", path: path, errno: errno) }
        self.path = path
        self.header = header
        self.descriptor = descriptor
        try write(Array(header.line.utf8))
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Appends one picture, which must have the header's size.
    public func append(_ image: I420Image) throws(Y4MError) {
        guard descriptor >= 0 else { throw .closed }
        let pixels = try Self.frameBytes(image, header: header)
        try write(Self.frameLine)
        try write(pixels)
        frameCount += 1
    }

    /// Closes the file. Calling it again throws ``Y4MError/closed``.
    public func close() throws(Y4MError) {
        guard descriptor >= 0 else { throw .closed }
        let result = systemClose(descriptor)
        descriptor = -1
        guard result == 0 else { throw .io(operation: "close", path: path, errno: errno) }
    }

    /// A whole stream in memory: the header line, then each frame.
    public static func encode(header: Y4MHeader, frames: [I420Image]) throws(Y4MError) -> [UInt8] {
        try validate(header)
        var bytes = Array(header.line.utf8)
        bytes.reserveCapacity(bytes.count + frames.count * (frameLine.count + header.frameByteCount))
        for frame in frames {
            bytes += frameLine
            bytes += try frameBytes(frame, header: header)
        }
        return bytes
    }

    private static func validate(_ header: Y4MHeader) throws(Y4MError) {
        if let space = header.colorSpace, !Y4MHeader.supportedColorSpaces.contains(space) { throw .unsupportedColorSpace(space) }
        guard (1...I420Image.maximumDimension).contains(header.width), (1...I420Image.maximumDimension).contains(header.height) else {
            throw .invalidHeader("width and height must be 1-\(I420Image.maximumDimension)")
        }
        guard header.frameRate.numerator > 0, header.frameRate.denominator > 0 else { throw .invalidHeader("frame rate \(header.frameRate)") }
    }

    /// The picture's Y, U and V rows without padding, as Y4M stores them.
    private static func frameBytes(_ image: I420Image, header: Y4MHeader) throws(Y4MError) -> ArraySlice<UInt8> {
        guard image.width == header.width, image.height == header.height else {
            throw .sizeMismatch(expectedWidth: header.width, expectedHeight: header.height, width: image.width, height: image.height)
        }
        if image.strideY == image.width, image.strideUV == image.chromaWidth { return image.storage[..<image.vRange.upperBound] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.frameByteCount)
        image.withUnsafePlanes { y, u, v in
            for row in 0..<image.height { bytes += y[(row * image.strideY)..<(row * image.strideY + image.width)] }
            for plane in [u, v] {
                for row in 0..<image.chromaHeight { bytes += plane[(row * image.strideUV)..<(row * image.strideUV + image.chromaWidth)] }
            }
        }
        return bytes[...]
    }

    private func write(_ bytes: some Collection<UInt8>) throws(Y4MError) {
        let descriptor = self.descriptor
        let failure: Int32 = bytes.withContiguousStorageIfAvailable { buffer in
            var done = 0
            while done < buffer.count {
                let written = systemWrite(descriptor, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[done...])))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return 0
        } ?? EINVAL
        if failure != 0 { throw .io(operation: "write", path: path, errno: failure) }
    }
}
