/// What `VIDIOC_QUERYCAP` says about a device node.
///
/// A plain value, safe to share.
struct V4L2Capabilities: Hashable, Sendable {
    /// `V4L2_CAP_VIDEO_CAPTURE`: single-planar video capture.
    static let videoCapture: UInt32 = 0x0000_0001
    /// `V4L2_CAP_STREAMING`: streaming I/O (memory-mapped buffers).
    static let streaming: UInt32 = 0x0400_0000

    /// The driver's name, for example `uvcvideo` or `vivid`.
    let driver: String
    /// The device's name, for example `Integrated Camera: Integrated C`.
    let card: String
    /// Where the device sits, for example `usb-0000:00:14.0-8`.
    let busInfo: String
    /// The node's capability flags (`device_caps` when the driver reports them).
    let capabilities: UInt32

    /// Whether the node captures video through memory-mapped streaming, the only way the camera reads. Metadata nodes
    /// of UVC cameras and output-only nodes are not.
    var canStreamCapture: Bool {
        capabilities & Self.videoCapture != 0 && capabilities & Self.streaming != 0
    }
}
