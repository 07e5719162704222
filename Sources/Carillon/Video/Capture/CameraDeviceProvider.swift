/// Where cameras come from: the seam between camera capture (``DefaultCameraCaptureSource``) and one kind of camera
/// device.
///
/// The providers: ``VirtualVideoDevices`` (pattern and Y4M-file cameras), ``V4L2Cameras`` (`/dev/video*` nodes with
/// their formats from ENUM_FMT, ENUM_FRAMESIZES and ENUM_FRAMEINTERVALS; opening one sets the format, maps buffers
/// and streams, and its ``PictureProducer`` dequeues without blocking at each tick of the capture loop, so the same
/// loop paces every camera), and ``SystemCameras``, both together.
///
/// Threading: listing may happen on any thread; ``openCamera(_:format:)`` is called on the capture loop.
protocol CameraDeviceProvider: AnyObject, Sendable {
    /// The cameras, in listing order.
    var cameras: [MediaDevice] { get }
    /// The formats `camera` captures, smallest first; empty when it is not one of this provider's cameras.
    func captureFormats(of camera: MediaDevice) -> [VideoCaptureFormat]
    /// Opens `camera` to capture pictures of `format` (the size of one of its formats, at the rate capture runs at, at
    /// most that format's). Throws
    /// ``CaptureSourceError/configurationFailure`` when the camera is gone or cannot be opened (logged to `logger`).
    func openCamera(_ camera: MediaDevice, format: VideoCaptureFormat, logger: any Logger) throws(CaptureSourceError)
        -> any PictureProducer
}
