/// What the device answered to the last ``V4L2Request``: the input of ``V4L2CaptureCore/handle(_:)``.
///
/// A plain value, safe to share.
enum V4L2Reply: Hashable, Sendable {
    /// `VIDIOC_S_FMT` succeeded with this format (the driver's, possibly adjusted).
    case formatSet(V4L2FrameFormat)
    /// `VIDIOC_S_PARM` succeeded; the driver's rate, rounded (nil when it did not say).
    case frameRateSet(Int?)
    /// `VIDIOC_REQBUFS` granted this many buffers.
    case buffersGranted(Int)
    /// The buffer is mapped, `length` bytes.
    case bufferMapped(index: Int, length: Int)
    /// `VIDIOC_DQBUF` returned a filled buffer; `corrupt` when the driver flagged its data.
    case bufferDequeued(index: Int, bytesUsed: Int, corrupt: Bool)
    /// A call without a result succeeded.
    case done
    /// The call failed with this `errno`.
    case failed(V4L2Errno)
}
