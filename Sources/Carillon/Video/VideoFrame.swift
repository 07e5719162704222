/// One picture of a video, with its time and orientation: what sources give to sinks.
///
/// The iOS SDK's `init?(sampleBuffer:)` takes an Apple `CMSampleBuffer` and does not exist here; make frames with
/// ``init(timestampNs:rotation:buffer:)`` (for example over a ``VideoFrameI420Buffer``).
///
/// Immutable, so frames may be handed between threads; a frame costs one small allocation and shares its buffer.
public final class VideoFrame: Sendable {
    /// When the picture was taken, in nanoseconds on a monotonic clock of the source's choosing. Carillon's sources
    /// use their event loop's uptime clock (`NIODeadline.uptimeNanoseconds`); remote frames carry the session's
    /// receive clock. Only differences between the frames of one source mean anything.
    public let timestampNs: Int64
    /// How the picture must be turned to appear upright.
    public let rotation: VideoRotation
    /// The pixels.
    public let buffer: any VideoFrameBuffer

    /// Width of the picture in pixels (the buffer's).
    public var width: Int { buffer.width() }
    /// Height of the picture in pixels (the buffer's).
    public var height: Int { buffer.height() }

    /// Creates a frame.
    public init(timestampNs: Int64, rotation: VideoRotation, buffer: any VideoFrameBuffer) {
        self.timestampNs = timestampNs
        self.rotation = rotation
        self.buffer = buffer
    }
}
