/// The V4L2 cameras of this machine, behind the camera device seam (``CameraDeviceProvider``): every video node that
/// captures through memory-mapped streaming in a pixel format the camera converts (YUYV, NV12 or MJPEG).
///
/// A camera is listed as a ``MediaDeviceType/videoFrontCamera`` (webcams face the user) labelled
/// `<card> (<path>)`, for example `Integrated Camera: Integrated C (/dev/video0)`. Its formats are the sizes its
/// pixel formats offer, each at the highest frame rate of any of them (``V4L2FormatCatalog``); opening a format picks
/// the pixel format reaching that rate, cheapest conversion first. Nodes that cannot be opened (busy, no permission)
/// are left out of the listing.
///
/// Cost: each listing opens every node for `VIDIOC_QUERYCAP` and `VIDIOC_ENUM_FMT`; a machine without nodes reads one
/// directory. Threading: safe from any thread (it keeps no state).
final class V4L2Cameras: CameraDeviceProvider, Sendable {
    private let nodes: any V4L2DeviceNodes

    /// The cameras of `nodes` (`/dev/video*` by default).
    init(nodes: any V4L2DeviceNodes = V4L2DeviceDirectory()) { self.nodes = nodes }

    var cameras: [MediaDevice] {
        nodes.nodePaths().compactMap { path in
            guard let device = try? nodes.open(path: path) else { return nil }
            defer { device.close() }
            guard let capabilities = try? device.queryCapabilities(), capabilities.canStreamCapture,
                  ((try? device.pixelFormats()) ?? []).contains(where: \.isConvertible) else { return nil }
            return MediaDevice(label: "\(capabilities.card) (\(path))", type: .videoFrontCamera,
                               endpoint: .v4l2Camera(path: path))
        }
    }

    func captureFormats(of camera: MediaDevice) -> [VideoCaptureFormat] {
        guard let path = path(of: camera), let device = try? nodes.open(path: path) else { return [] }
        defer { device.close() }
        return V4L2FormatCatalog.read(from: device).captureFormats
    }

    func openCamera(_ camera: MediaDevice, format: VideoCaptureFormat, logger: any Logger) throws(CaptureSourceError)
        -> any PictureProducer {
        guard let path = path(of: camera) else {
            logger.error(msg: "\(camera) is not a V4L2 camera")
            throw .configurationFailure
        }
        let device: any V4L2Device
        do { device = try nodes.open(path: path) } catch {
            logger.error(msg: "V4L2 \(path): cannot open: \(error)")
            throw .configurationFailure
        }
        guard let pixelFormat = V4L2FormatCatalog.read(from: device).pixelFormat(for: format) else {
            device.close()
            logger.error(msg: "V4L2 \(path): no pixel format offers \(format.width)x\(format.height)")
            throw .configurationFailure
        }
        return try V4L2Pictures(device: device, label: path, pixelFormat: pixelFormat, width: format.width,
                                height: format.height, framesPerSecond: format.maxFrameRate, logger: logger)
    }

    /// The node `camera` stands for: its own, or for a device made with `MediaDevice(label:type:)`, that of the listed
    /// camera with its label and type.
    private func path(of camera: MediaDevice) -> String? {
        switch camera.endpoint {
        case .v4l2Camera(let path): return path
        case .unspecified:
            guard case .v4l2Camera(let path)? = cameras.first(where: { $0.label == camera.label && $0.type == camera.type })?.endpoint
            else { return nil }
            return path
        case .virtual, .alsa, .virtualCamera: return nil
        }
    }
}
