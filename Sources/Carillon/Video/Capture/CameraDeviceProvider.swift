/// Where cameras come from: the seam between camera capture (``DefaultCameraCaptureSource``) and one kind of camera
/// device.
///
/// Today the only provider is ``VirtualVideoDevices``. A V4L2 provider (a later issue) would list `/dev/video*`
/// devices with their formats (ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS), and open a device by setting the
/// format, mapping buffers and streaming; its ``PictureProducer`` would dequeue without blocking and return the newest
/// picture, converted to I420, at each tick of the capture loop (or throw ``CaptureSourceError/invalidFrame`` when
/// none has arrived), so the same loop paces every camera.
///
/// Threading: listing may happen on any thread; ``openCamera(_:format:)`` is called on the capture loop.
protocol CameraDeviceProvider: AnyObject, Sendable {
    /// The cameras, in listing order.
    var cameras: [MediaDevice] { get }
    /// The formats `camera` captures, smallest first; empty when it is not one of this provider's cameras.
    func captureFormats(of camera: MediaDevice) -> [VideoCaptureFormat]
    /// Opens `camera` to capture pictures of `format` (one of its formats). Throws
    /// ``CaptureSourceError/configurationFailure`` when the camera is gone or cannot be opened (logged to `logger`).
    func openCamera(_ camera: MediaDevice, format: VideoCaptureFormat, logger: any Logger) throws(CaptureSourceError)
        -> any PictureProducer
}
