import CarillonCodecs

/// A picture in planar YUV 4:2:0 (I420): Carillon's concrete ``VideoFrameBuffer``, in the shape of the Chime SDK for
/// Android's `VideoFrameI420Buffer` (the iOS SDK's only buffer wraps an Apple `CVPixelBuffer`).
///
/// It wraps a ``CarillonCodecs/I420Image``, the codec layer's picture, so a frame goes from a source to the encoder,
/// and from the decoder to a sink, without a copy: ``init(image:releaseCallback:)`` and ``image`` neither copy nor
/// convert. ``init(width:height:dataY:dataU:dataV:strideY:strideU:strideV:releaseCallback:)`` takes three planes as
/// a capture library hands them over and copies them once (about 1.5 bytes a pixel: 1.4 MB at 1280x720).
///
/// Android counts references with `retain()`/`release()` and calls the release callback when the count reaches
/// zero. Swift counts references itself (ARC): ``retain()`` and ``release()`` do nothing, and the release callback
/// runs once, when the buffer is freed (the last frame holding it is gone).
///
/// Immutable; share it between threads freely.
public final class VideoFrameI420Buffer: VideoFrameBuffer {
    /// The picture, without a copy.
    public let image: I420Image
    private let releaseCallback: (@Sendable () -> Void)?

    /// Wraps `image` (no copy). `releaseCallback`, if any, is called once when the buffer is freed.
    public init(image: I420Image, releaseCallback: (@Sendable () -> Void)? = nil) {
        self.image = image
        self.releaseCallback = releaseCallback
    }

    /// Copies three planes into a new picture of `width` x `height`: Y rows `strideY` bytes apart, U and V rows
    /// (each `(width + 1) / 2` wide and `(height + 1) / 2` high) `strideU` and `strideV` bytes apart. Throws when a
    /// size or stride is out of range or a plane is too short for it. `releaseCallback`, if any, is called once when
    /// the buffer is freed (the planes themselves are not kept: they may be reused as soon as this returns).
    ///
    /// Cost: one allocation and a copy of the visible rows (libyuv `I420Copy`).
    public convenience init(
        width: Int, height: Int,
        dataY: [UInt8], dataU: [UInt8], dataV: [UInt8],
        strideY: Int, strideU: Int, strideV: Int,
        releaseCallback: (@Sendable () -> Void)? = nil
    ) throws(I420ImageError) {
        let image = try I420Image(width: width, height: height, y: dataY, strideY: strideY, u: dataU, strideU: strideU,
                                  v: dataV, strideV: strideV)
        self.init(image: image, releaseCallback: releaseCallback)
    }

    deinit { releaseCallback?() }

    /// Width of the picture in pixels.
    public func width() -> Int { image.width }
    /// Height of the picture in pixels.
    public func height() -> Int { image.height }

    /// The luma plane, ``strideY`` bytes a row (a slice of the picture's storage: no copy; its indices are the
    /// storage's, starting at `dataY.startIndex`).
    public var dataY: ArraySlice<UInt8> { image.storage[image.yRange] }
    /// The U (Cb) plane, ``strideU`` bytes a row (a slice of the picture's storage, see ``dataY``).
    public var dataU: ArraySlice<UInt8> { image.storage[image.uRange] }
    /// The V (Cr) plane, ``strideV`` bytes a row (a slice of the picture's storage, see ``dataY``).
    public var dataV: ArraySlice<UInt8> { image.storage[image.vRange] }
    /// Bytes from one luma row to the next.
    public var strideY: Int { image.strideY }
    /// Bytes from one U row to the next.
    public var strideU: Int { image.strideUV }
    /// Bytes from one V row to the next.
    public var strideV: Int { image.strideUV }

    /// Does nothing: Swift counts references itself (Android's buffers are reference-counted by hand).
    public func retain() {}
    /// Does nothing: the buffer is freed, and its release callback called, when the last reference goes.
    public func release() {}
}
