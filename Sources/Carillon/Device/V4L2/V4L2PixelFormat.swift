/// A V4L2 pixel format: its FourCC code (`v4l2_fourcc`, the four characters in little-endian order).
///
/// The camera converts three to I420: ``yuyv``, ``nv12`` and ``mjpeg`` (what webcams offer). A plain value, safe to
/// share.
struct V4L2PixelFormat: Hashable, Sendable, CustomStringConvertible {
    /// The FourCC code, first character in the low byte.
    let code: UInt32

    /// The format of FourCC `code`.
    init(code: UInt32) { self.code = code }

    /// The format whose FourCC is the four ASCII characters of `fourCC`.
    init(_ fourCC: StaticString) {
        precondition(fourCC.utf8CodeUnitCount == 4, "a FourCC has four characters")
        let bytes = UnsafeBufferPointer(start: fourCC.utf8Start, count: 4)
        code = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// Packed YUV 4:2:2, bytes Y0 U Y1 V (`V4L2_PIX_FMT_YUYV`).
    static let yuyv = V4L2PixelFormat("YUYV")
    /// Y plane then interleaved U, V at half size (`V4L2_PIX_FMT_NV12`).
    static let nv12 = V4L2PixelFormat("NV12")
    /// Motion JPEG: each buffer one JPEG picture (`V4L2_PIX_FMT_MJPEG`).
    static let mjpeg = V4L2PixelFormat("MJPG")

    /// The formats the camera converts, in order of preference at equal frame rates: the cheapest conversion first.
    static let convertible: [V4L2PixelFormat] = [.nv12, .yuyv, .mjpeg]

    /// Whether the camera can convert it to I420.
    var isConvertible: Bool { Self.convertible.contains(self) }

    /// The four characters (non-printable bytes as `?`).
    var description: String {
        String((0..<4).map { shift -> Character in
            let byte = UInt8(truncatingIfNeeded: code >> (8 * UInt32(shift)))
            return (0x20..<0x7F).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
        })
    }
}
