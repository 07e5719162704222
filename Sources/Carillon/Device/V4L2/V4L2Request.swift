/// One call the capture core (``V4L2CaptureCore``) asks its shell to make on the device, in the order of the V4L2
/// capture sequence.
///
/// A plain value, safe to share.
enum V4L2Request: Hashable, Sendable, CustomStringConvertible {
    /// `VIDIOC_S_FMT` with this pixel format and size; answered by ``V4L2Reply/formatSet(_:)`` with what the driver
    /// set (it may adjust the size, or the pixel format).
    case setFormat(V4L2FrameFormat)
    /// `VIDIOC_S_PARM` asking for this many frames a second; answered by ``V4L2Reply/frameRateSet(_:)``.
    case setFrameRate(Int)
    /// `VIDIOC_REQBUFS` for this many memory-mapped buffers; answered by ``V4L2Reply/buffersGranted(_:)``.
    case requestBuffers(count: Int)
    /// `VIDIOC_QUERYBUF` and `mmap` of one buffer; answered by ``V4L2Reply/bufferMapped(index:length:)``.
    case mapBuffer(index: Int)
    /// `VIDIOC_QBUF` of one buffer; answered by ``V4L2Reply/done``.
    case queueBuffer(index: Int)
    /// `VIDIOC_STREAMON`; answered by ``V4L2Reply/done``.
    case streamOn
    /// `VIDIOC_DQBUF` without blocking; answered by ``V4L2Reply/bufferDequeued(index:bytesUsed:corrupt:)``, or by
    /// ``V4L2Reply/failed(_:)`` with `EAGAIN` when no buffer is ready.
    case dequeueBuffer
    /// `VIDIOC_STREAMOFF` (the driver gives back every queued buffer); answered by ``V4L2Reply/done``.
    case streamOff
    /// `munmap` of every mapped buffer and `VIDIOC_REQBUFS` with 0; answered by ``V4L2Reply/done``.
    case releaseBuffers

    /// The V4L2 name of the call and its argument.
    var description: String {
        switch self {
        case .setFormat(let format): "S_FMT \(format)"
        case .setFrameRate(let fps): "S_PARM \(fps) fps"
        case .requestBuffers(let count): "REQBUFS \(count)"
        case .mapBuffer(let index): "QUERYBUF+mmap \(index)"
        case .queueBuffer(let index): "QBUF \(index)"
        case .streamOn: "STREAMON"
        case .dequeueBuffer: "DQBUF"
        case .streamOff: "STREAMOFF"
        case .releaseBuffers: "munmap+REQBUFS 0"
        }
    }
}
