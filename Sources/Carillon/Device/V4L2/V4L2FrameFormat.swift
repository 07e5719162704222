import CarillonCodecs

/// A capture format as `VIDIOC_S_FMT` takes and returns it: pixel format, size and buffer layout.
///
/// A plain value, safe to share.
struct V4L2FrameFormat: Hashable, Sendable, CustomStringConvertible {
    /// The pixel format.
    var pixelFormat: V4L2PixelFormat
    /// Width in pixels.
    var width: Int
    /// Height in pixels.
    var height: Int
    /// Bytes from one row to the next (of the luma plane for NV12); 0 for compressed formats and when asking.
    var bytesPerLine: Int = 0
    /// Bytes a buffer needs for one picture (the most, for compressed formats); 0 when asking.
    var sizeImage: Int = 0

    /// `<fourcc> <width>x<height>`.
    var description: String { "\(pixelFormat) \(width)x\(height)" }
}

extension V4L2FrameFormat {
    /// The picture in `bytes` (one buffer's used bytes, laid out in this format), converted to I420 by the
    /// CarillonCodecs converters (libyuv): YUYV and NV12 rows ``bytesPerLine`` apart (tight when 0), MJPEG decoded.
    /// Throws the converter's error for a short or undecodable buffer, or a pixel format the camera does not convert.
    ///
    /// Cost: one allocation of the I420 picture and one libyuv pass (an MJPEG decode for MJPEG).
    func picture(from bytes: UnsafeRawBufferPointer) throws(I420ImageError) -> I420Image {
        let stride = bytesPerLine > 0 ? bytesPerLine : nil
        switch pixelFormat {
        case .yuyv: return try I420Image(yuyv: bytes, width: width, height: height, stride: stride)
        case .nv12: return try I420Image(nv12: bytes, width: width, height: height, stride: stride)
        case .mjpeg: return try I420Image(mjpeg: bytes, width: width, height: height)
        default: throw .conversionFailed(function: "V4L2 \(pixelFormat)", status: -1)
        }
    }
}
