/// Why a YUV4MPEG2 (`.y4m`) file could not be read or written.
public enum Y4MError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed: what was being done, on which path, and errno.
    case io(operation: String, path: String, errno: Int32)
    /// The bytes do not start with the `YUV4MPEG2 ` signature.
    case notY4M
    /// The stream header is malformed: no end of line, a missing or bad width or height, a bad ratio.
    case invalidHeader(String)
    /// The stream is not 8-bit 4:2:0 (e.g. `C422`, `C444`, `Cmono`, `C420p10`); only `C420`, `C420jpeg`,
    /// `C420paligned`, `C420mpeg2` or no `C` tag are read.
    case unsupportedColorSpace(String)
    /// Frame number `frame` (from 0) does not start with a `FRAME` line.
    case invalidFrameMarker(frame: Int)
    /// The file ends inside frame number `frame` (from 0).
    case truncatedFrame(frame: Int)
    /// The image handed to the writer is not the size in its header.
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// The writer was already closed.
    case closed

    public var description: String {
        switch self {
        case .io(let operation, let path, let errno): "\(operation) \(path) failed: errno \(errno)"
        case .notY4M: "not a YUV4MPEG2 stream"
        case .invalidHeader(let reason): "invalid YUV4MPEG2 header: \(reason)"
        case .unsupportedColorSpace(let space): "unsupported YUV4MPEG2 colour space C\(space) (only 8-bit 4:2:0 is read)"
        case .invalidFrameMarker(let frame): "frame \(frame) does not start with FRAME"
        case .truncatedFrame(let frame): "the stream ends inside frame \(frame)"
        case .sizeMismatch(let expectedWidth, let expectedHeight, let width, let height):
            "the stream is \(expectedWidth)x\(expectedHeight), got a \(width)x\(height) image"
        case .closed: "the Y4M writer is closed"
        }
    }
}
