/// The device seam under the V4L2 camera: one open video device node. The real one is a file descriptor
/// (``V4L2FileDevice``); tests use a scripted fake, since the project's machines have no V4L2 device.
///
/// Listing enumerates (`VIDIOC_ENUM_FMT`, `VIDIOC_ENUM_FRAMESIZES`, `VIDIOC_ENUM_FRAMEINTERVALS`); capture goes
/// through ``perform(_:)``, which makes the call a ``V4L2CaptureCore`` asks for and returns the device's answer.
///
/// Threading: one owner; used from one thread at a time (the capture loop while capturing).
protocol V4L2Device: AnyObject {
    /// `VIDIOC_QUERYCAP`.
    func queryCapabilities() throws(V4L2Errno) -> V4L2Capabilities
    /// The pixel formats the node captures (`VIDIOC_ENUM_FMT` until `EINVAL`).
    func pixelFormats() throws(V4L2Errno) -> [V4L2PixelFormat]
    /// The sizes of `format` (`VIDIOC_ENUM_FRAMESIZES` until `EINVAL`).
    func frameSizes(of format: V4L2PixelFormat) throws(V4L2Errno) -> [V4L2FrameSize]
    /// The highest frame rate of `format` at `width` x `height`, rounded (`VIDIOC_ENUM_FRAMEINTERVALS`: the shortest
    /// interval); nil when the driver does not enumerate intervals.
    func maximumFrameRate(of format: V4L2PixelFormat, width: Int, height: Int) -> Int?
    /// Makes one call of the capture sequence and returns its answer; never blocks.
    func perform(_ request: V4L2Request) -> V4L2Reply
    /// The bytes of mapped buffer `index`, valid until ``V4L2Request/releaseBuffers``; empty if it is not mapped.
    func mappedBuffer(index: Int) -> UnsafeRawBufferPointer
    /// Closes the node (unmapping what is still mapped). Further calls fail.
    func close()
}
