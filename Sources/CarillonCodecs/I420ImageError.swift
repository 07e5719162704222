/// Why an ``I420Image`` could not be made, converted or scaled.
public enum I420ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Width and height must each be 1...``I420Image/maximumDimension``.
    case invalidSize(width: Int, height: Int)
    /// A row stride is shorter than the plane's row (`minimum` bytes), or absurdly large.
    case invalidStride(plane: String, stride: Int, minimum: Int)
    /// A source buffer or plane holds fewer bytes than its size and stride need.
    case bufferTooSmall(plane: String, count: Int, needed: Int)
    /// libyuv refused the call (it returns -1 for arguments it cannot handle).
    case conversionFailed(function: String, status: Int32)

    public var description: String {
        switch self {
        case .invalidSize(let width, let height):
            "\(width)x\(height) is not a picture size (1...\(I420Image.maximumDimension) each way)"
        case .invalidStride(let plane, let stride, let minimum):
            "\(plane) stride \(stride) is invalid (at least \(minimum))"
        case .bufferTooSmall(let plane, let count, let needed): "\(plane) holds \(count) bytes, needs \(needed)"
        case .conversionFailed(let function, let status): "libyuv \(function) failed with \(status)"
        }
    }
}
