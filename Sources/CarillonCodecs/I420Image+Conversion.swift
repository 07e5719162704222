import CCarillonYUV

// Conversions from the memory layouts capture sources deliver (V4L2 webcams: YUYV, NV12 and MJPEG; X11 and most screen
// grabbers: 32-bit BGRA) to I420, through libyuv. All use BT.601 studio range, as libwebrtc does for VP8.
extension I420Image {
    /// The byte order of a 32-bit packed RGB pixel **in memory**, first byte first.
    ///
    /// libyuv names these formats after a little-endian 32-bit word instead, so its names read backwards: libyuv
    /// "ARGB" is ``bgra`` here, "ABGR" is ``rgba``, "BGRA" is ``argb`` and "RGBA" is ``abgr``. The alpha (or padding)
    /// byte is ignored.
    public enum PackedRGBLayout: Sendable, Hashable, CaseIterable {
        /// B, G, R, A: X11/XCB ZPixmap images at depth 24 or 32 on little-endian machines, DRM `XRGB8888`, Windows
        /// `BGRA`, Core Video `32BGRA`. libyuv "ARGB".
        case bgra
        /// R, G, B, A: canvas `ImageData`, OpenGL `GL_RGBA` readback, PNG decoders. libyuv "ABGR".
        case rgba
        /// A, R, G, B. libyuv "BGRA".
        case argb
        /// A, B, G, R. libyuv "RGBA".
        case abgr
    }

    /// A picture converted from NV12 held in two planes: full-size luma, then interleaved U, V pairs at half size
    /// (V4L2 `NV12M`, VA-API and most hardware decoders). Strides are in bytes; the chroma plane has
    /// `(height + 1) / 2` rows of `2 * ((width + 1) / 2)` bytes.
    ///
    /// Cost: one allocation and a libyuv pass (0.015 ms at 640x360, 0.06 ms at 1280x720: CPU time of a 500-call
    /// loop, release build).
    public init(
        nv12 luma: UnsafeRawBufferPointer, lumaStride: Int,
        chroma: UnsafeRawBufferPointer, chromaStride: Int,
        width: Int, height: Int
    ) throws(I420ImageError) {
        self = try I420Image(uninitializedWidth: width, height: height)
        try Self.check(plane: "NV12 Y", count: luma.count, stride: lumaStride, rowBytes: width, rows: height)
        try Self.check(plane: "NV12 UV", count: chroma.count, stride: chromaStride, rowBytes: 2 * chromaWidth, rows: chromaHeight)
        let (strideY, strideUV) = (self.strideY, self.strideUV)
        let status = withUnsafeMutablePlanes { dy, du, dv in
            NV12ToI420(Self.bytes(luma), Int32(lumaStride), Self.bytes(chroma), Int32(chromaStride),
                       dy.baseAddress, Int32(strideY), du.baseAddress, Int32(strideUV), dv.baseAddress, Int32(strideUV),
                       Int32(width), Int32(height))
        }
        guard status == 0 else { throw .conversionFailed(function: "NV12ToI420", status: status) }
    }

    /// A picture converted from NV12 in one buffer, the chroma plane right after `height` luma rows of `stride` bytes
    /// (V4L2 single-planar `V4L2_PIX_FMT_NV12`, where `stride` is `bytesperline`). `stride` defaults to the width
    /// rounded up to even, since both planes share it and a chroma row is `2 * ((width + 1) / 2)` bytes.
    public init(nv12 buffer: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int? = nil) throws(I420ImageError) {
        let stride = stride ?? (width + 1) & ~1
        guard (1...Self.maximumDimension).contains(height) else { throw .invalidSize(width: width, height: height) }
        let split = min(buffer.count, max(0, stride) * height)
        try self.init(nv12: UnsafeRawBufferPointer(rebasing: buffer[..<split]), lumaStride: stride,
                      chroma: UnsafeRawBufferPointer(rebasing: buffer[split...]), chromaStride: stride,
                      width: width, height: height)
    }

    /// A picture converted from packed YUYV 4:2:2 (FourCC `YUY2`/`YUYV`: bytes Y0, U, Y1, V for each pair of pixels;
    /// what nearly every USB webcam offers uncompressed). `stride` defaults to `4 * ((width + 1) / 2)`. Chroma of
    /// two rows is averaged into one.
    ///
    /// Cost: one allocation and a libyuv pass (0.04 ms at 640x360, 0.16 ms at 1280x720: CPU time of a 500-call loop,
    /// release build).
    public init(yuyv buffer: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int? = nil) throws(I420ImageError) {
        self = try I420Image(uninitializedWidth: width, height: height)
        let rowBytes = 4 * chromaWidth
        let stride = stride ?? rowBytes
        try Self.check(plane: "YUYV", count: buffer.count, stride: stride, rowBytes: rowBytes, rows: height)
        let (strideY, strideUV) = (self.strideY, self.strideUV)
        let status = withUnsafeMutablePlanes { dy, du, dv in
            YUY2ToI420(Self.bytes(buffer), Int32(stride), dy.baseAddress, Int32(strideY), du.baseAddress, Int32(strideUV),
                       dv.baseAddress, Int32(strideUV), Int32(width), Int32(height))
        }
        guard status == 0 else { throw .conversionFailed(function: "YUY2ToI420", status: status) }
    }

    /// A picture decoded from one Motion-JPEG frame (V4L2 `MJPG`: a baseline JPEG, 4:2:0, 4:2:2, 4:4:4 or grey, as
    /// webcams send at sizes their USB bandwidth cannot carry uncompressed; frames without Huffman tables get the
    /// standard ones) of exactly `width` x `height`, through libyuv `MJPGToI420` (libjpeg-turbo underneath). Throws
    /// ``I420ImageError/conversionFailed(function:status:)`` for data that is not such a JPEG, truncated, or of
    /// another size.
    ///
    /// Cost: one allocation and a JPEG decode (libjpeg-turbo's SIMD paths).
    public init(mjpeg buffer: UnsafeRawBufferPointer, width: Int, height: Int) throws(I420ImageError) {
        self = try I420Image(uninitializedWidth: width, height: height)
        guard buffer.count > 0 else { throw .bufferTooSmall(plane: "MJPEG", count: 0, needed: 1) }
        let (strideY, strideUV) = (self.strideY, self.strideUV)
        let status = withUnsafeMutablePlanes { dy, du, dv in
            MJPGToI420(Self.bytes(buffer), buffer.count, dy.baseAddress, Int32(strideY), du.baseAddress, Int32(strideUV),
                       dv.baseAddress, Int32(strideUV), Int32(width), Int32(height), Int32(width), Int32(height))
        }
        guard status == 0 else { throw .conversionFailed(function: "MJPGToI420", status: status) }
    }

    /// A picture converted from 32-bit packed RGB whose bytes are in `layout` order (see ``PackedRGBLayout`` for how
    /// that maps to libyuv's names). `stride` defaults to `4 * width`. Chroma is the BT.601 studio-range value of
    /// each 2x2 block's average colour.
    ///
    /// Cost: one allocation and a libyuv pass (0.09 ms at 640x360, 0.5 ms at 1280x720: CPU time of a 500-call loop,
    /// release build).
    public init(packedRGB buffer: UnsafeRawBufferPointer, layout: PackedRGBLayout, width: Int, height: Int, stride: Int? = nil) throws(I420ImageError) {
        self = try I420Image(uninitializedWidth: width, height: height)
        let stride = stride ?? 4 * width
        try Self.check(plane: "packed RGB", count: buffer.count, stride: stride, rowBytes: 4 * width, rows: height)
        let (strideY, strideUV) = (self.strideY, self.strideUV)
        let (function, convert) = layout.converter
        let status = withUnsafeMutablePlanes { dy, du, dv in
            convert(Self.bytes(buffer), Int32(stride), dy.baseAddress, Int32(strideY), du.baseAddress, Int32(strideUV),
                    dv.baseAddress, Int32(strideUV), Int32(width), Int32(height))
        }
        guard status == 0 else { throw .conversionFailed(function: function, status: status) }
    }

    /// An image of tight strides whose storage is allocated but not cleared, for producers that write every byte.
    init(uninitializedWidth width: Int, height: Int) throws(I420ImageError) {
        let (strideY, strideUV, count) = try Self.layout(width: width, height: height, strideY: nil, strideUV: nil)
        // With tight strides every byte is a visible sample, and every producer using this writes them all.
        let storage = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        self.init(unchecked: width, height, strideY, strideUV, storage)
    }

    private static func bytes(_ buffer: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }
}

extension I420Image.PackedRGBLayout {
    typealias Converter = @convention(c) (
        UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32,
        UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
    ) -> Int32

    /// The libyuv function for this memory order, and its name for errors.
    var converter: (String, Converter) {
        switch self {
        case .bgra: ("ARGBToI420", ARGBToI420)
        case .rgba: ("ABGRToI420", ABGRToI420)
        case .argb: ("BGRAToI420", BGRAToI420)
        case .abgr: ("RGBAToI420", RGBAToI420)
        }
    }
}
