import CarillonCodecs
import Foundation

/// The registry of virtual cameras: cameras made of software, for bots, tests and machines without a camera (such
/// as the project's own, which have no V4L2). ``MediaDevice/listVideoDevices()`` lists the cameras of ``shared``, and
/// ``DefaultCameraCaptureSource`` captures from them like from real ones.
///
/// ``shared`` starts with two pattern cameras: `Pattern camera (blue)`, a ``MediaDeviceType/videoFrontCamera`` (the
/// default camera), and `Pattern camera (orange)`, a ``MediaDeviceType/videoBackCamera`` (so `switchCamera()` has
/// somewhere to go). A pattern camera draws `VideoTestPattern` pictures in its colour, with the frame counter, at any
/// of ``patternCameraFormats``. Register more before making a session (its camera picks its default device when it
/// is made):
///
/// ```swift
/// let red = try VirtualVideoDevices.shared.addPatternCamera(color: .red)           // or add(specification: "pattern:red")
/// let clip = try VirtualVideoDevices.shared.addY4MFileCamera(path: "/tmp/clip.y4m") // or add(specification: "y4m:/tmp/clip.y4m")
/// camera.device = clip
/// ```
///
/// A Y4M camera plays its file over and over at the file's frame rate (1-60 fps), in its own size or scaled to any
/// of the standard sizes of ``patternCameraFormats``. Adding a camera that is already registered returns the existing
/// one. A device made by the app with `MediaDevice(label:type:)` stands for the registered camera with the same label
/// and type.
///
/// Threading: safe from any thread (a lock guards the list).
public final class VirtualVideoDevices: CameraDeviceProvider, @unchecked Sendable {
    /// The registry ``MediaDevice/listVideoDevices()`` lists and the SDK's camera captures from.
    public static let shared = VirtualVideoDevices()

    /// The formats of a pattern camera: 16:9 sizes from 160x90 to 1920x1080, at up to 30 fps.
    public static let patternCameraFormats: [VideoCaptureFormat] = [
        (160, 90), (320, 180), (480, 270), (640, 360), (960, 540), (1280, 720), (1920, 1080),
    ].map { VideoCaptureFormat(width: $0.0, height: $0.1, maxFrameRate: 30) }

    private enum Pictures {
        case pattern(VideoTestPattern.Color)
        case y4m(path: String)
    }

    private struct Entry {
        let device: MediaDevice
        let pictures: Pictures
        let formats: [VideoCaptureFormat]
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// Creates a registry holding the two default pattern cameras, or nothing when `includingDefaults` is false.
    public init(includingDefaults: Bool = true) {
        guard includingDefaults else { return }
        addPatternCamera(color: .blue, type: .videoFrontCamera)
        addPatternCamera(color: .orange, type: .videoBackCamera)
    }

    /// Every registered camera, in registration order.
    public var devices: [MediaDevice] { lock.withLock { entries.map(\.device) } }

    /// Registers a pattern camera of `color` (labelled `Pattern camera (<colour>)`). Give front and back cameras the
    /// types ``MediaDeviceType/videoFrontCamera`` and ``MediaDeviceType/videoBackCamera``: as on iOS, only those list
    /// formats through ``MediaDevice/listSupportedVideoCaptureFormats(mediaDevice:)``.
    @discardableResult
    public func addPatternCamera(color: VideoTestPattern.Color, type: MediaDeviceType = .videoFrontCamera) -> MediaDevice {
        add(label: "Pattern camera (\(color))", key: "pattern:\(color.red),\(color.green),\(color.blue):\(type.rawValue)",
            type: type, pictures: .pattern(color), formats: Self.patternCameraFormats)
    }

    /// Registers a camera playing the Y4M file at `path` over and over (labelled `Y4M file <path>`). The file is
    /// checked now (its header and first frame), so a bad path fails here rather than at capture.
    @discardableResult
    public func addY4MFileCamera(path: String, type: MediaDeviceType = .videoFrontCamera) throws(VirtualVideoDeviceError) -> MediaDevice {
        let header: Y4MHeader
        do {
            let reader = try Y4MReader(contentsOf: path)
            guard try reader.nextFrame() != nil else { throw VirtualVideoDeviceError.emptyFile(path) }
            header = reader.header
        } catch let error as VirtualVideoDeviceError {
            throw error
        } catch let error as Y4MError {
            throw .file(error)
        } catch {
            throw .invalidSpecification(path)
        }
        let fps = Y4MPictures.framesPerSecond(header)
        let native = VideoCaptureFormat(width: header.width, height: header.height, maxFrameRate: fps)
        let scaled = Self.patternCameraFormats.map { VideoCaptureFormat(width: $0.width, height: $0.height, maxFrameRate: fps) }
        let formats = ([native] + scaled.filter { $0 != native }).sorted { $0.width * $0.height < $1.width * $1.height }
        return add(label: "Y4M file \(path)", key: "y4m:\(path):\(type.rawValue)", type: type, pictures: .y4m(path: path),
                   formats: formats)
    }

    /// Registers the camera a specification names (for command-line options): `pattern` (the blue front
    /// camera), `pattern:<colour>` (a colour of `VideoTestPattern.Color.palette` by name: red, green, blue, yellow,
    /// magenta, cyan, orange, purple) or `y4m:<path>`; all of type ``MediaDeviceType/videoFrontCamera``.
    @discardableResult
    public func add(specification: String) throws(VirtualVideoDeviceError) -> MediaDevice {
        let parts = specification.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        switch (parts[0], parts.count > 1 ? parts[1] : nil) {
        case ("pattern", nil): return addPatternCamera(color: .blue)
        case ("pattern", let name?):
            guard let color = VideoTestPattern.Color.palette.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .unknownColor(name)
            }
            return addPatternCamera(color: color)
        case ("y4m", let path?) where !path.isEmpty: return try addY4MFileCamera(path: path)
        default: throw .invalidSpecification(specification)
        }
    }

    /// Removes a camera; a capture already using it goes on until it restarts.
    public func remove(_ device: MediaDevice) {
        lock.withLock { entries.removeAll { $0.device == device } }
    }

    // MARK: CameraDeviceProvider

    var cameras: [MediaDevice] { devices }

    func captureFormats(of camera: MediaDevice) -> [VideoCaptureFormat] {
        entry(for: camera)?.formats ?? []
    }

    func openCamera(_ camera: MediaDevice, format: VideoCaptureFormat, logger: any Logger) throws(CaptureSourceError)
        -> any PictureProducer {
        guard let entry = entry(for: camera) else {
            logger.error(msg: "\(camera) is not a registered camera")
            throw .configurationFailure
        }
        switch entry.pictures {
        case .pattern(let color):
            return try PatternPictures(color: color, width: format.width, height: format.height)
        case .y4m(let path):
            return try Y4MPictures(path: path, width: format.width, height: format.height, logger: logger)
        }
    }

    /// The registered camera `camera` is, or, for a device made with `MediaDevice(label:type:)`, the first with its
    /// label and type (as audio devices are matched).
    private func entry(for camera: MediaDevice) -> Entry? {
        lock.withLock {
            camera.endpoint == .unspecified
                ? entries.first { $0.device.label == camera.label && $0.device.type == camera.type }
                : entries.first { $0.device == camera }
        }
    }

    private func add(label: String, key: String, type: MediaDeviceType, pictures: Pictures,
                     formats: [VideoCaptureFormat]) -> MediaDevice {
        let device = MediaDevice(label: label, type: type, endpoint: .virtualCamera(key: key))
        return lock.withLock {
            if let existing = entries.first(where: { $0.device.endpoint == device.endpoint }) { return existing.device }
            entries.append(Entry(device: device, pictures: pictures, formats: formats))
            return device
        }
    }
}
