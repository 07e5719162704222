/// Every camera of this machine: its V4L2 cameras (``V4L2Cameras``) first, then the virtual ones of
/// ``VirtualVideoDevices/shared``. What ``MediaDevice/listVideoDevices()`` lists and the SDK's camera
/// (``DefaultCameraCaptureSource``) captures from.
///
/// A camera goes to the provider its endpoint belongs to; a device made with `MediaDevice(label:type:)` to the first
/// provider listing its label and type. Threading: safe from any thread.
final class SystemCameras: CameraDeviceProvider, Sendable {
    /// The machine's cameras.
    static let shared = SystemCameras(v4l2: V4L2Cameras(), virtual: VirtualVideoDevices.shared)

    private let v4l2: V4L2Cameras
    private let virtual: VirtualVideoDevices

    /// The cameras of `v4l2`, then those of `virtual`.
    init(v4l2: V4L2Cameras, virtual: VirtualVideoDevices) {
        self.v4l2 = v4l2
        self.virtual = virtual
    }

    var cameras: [MediaDevice] { v4l2.cameras + virtual.cameras }

    func captureFormats(of camera: MediaDevice) -> [VideoCaptureFormat] {
        provider(of: camera)?.captureFormats(of: camera) ?? []
    }

    func openCamera(_ camera: MediaDevice, format: VideoCaptureFormat, logger: any Logger) throws(CaptureSourceError)
        -> any PictureProducer {
        guard let provider = provider(of: camera) else {
            logger.error(msg: "\(camera) is not an available camera")
            throw .configurationFailure
        }
        return try provider.openCamera(camera, format: format, logger: logger)
    }

    private func provider(of camera: MediaDevice) -> (any CameraDeviceProvider)? {
        switch camera.endpoint {
        case .v4l2Camera: return v4l2
        case .virtualCamera: return virtual
        case .unspecified:
            let matches = { (list: [MediaDevice]) in list.contains { $0.label == camera.label && $0.type == camera.type } }
            if matches(v4l2.cameras) { return v4l2 }
            return matches(virtual.cameras) ? virtual : nil
        case .virtual, .alsa: return nil
        }
    }
}
