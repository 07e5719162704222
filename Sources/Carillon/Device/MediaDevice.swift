/// An audio (or video) device the app can list and choose: a label for people and a ``MediaDeviceType``.
///
/// The iOS SDK's `port` is an `AVAudioSessionPortDescription`, which does not exist on Linux: here it is an
/// ``AudioPortDescription`` an app may give to ``init(label:port:)`` (the listed devices have none). What tells the
/// controller which physical route a device is, is an internal endpoint (an ALSA `hw:<card>,<device>` PCM, or a
/// virtual device of ``VirtualAudioDevices``). A device made with ``init(label:type:)`` or ``init(label:port:)``
/// has no endpoint; ``DeviceController/chooseAudioDevice(mediaDevice:)`` matches it to a listed device by label and
/// type. Cameras are listed by ``listVideoDevices()``: the machine's V4L2 cameras (bound to their `/dev/video<N>`
/// node), then the virtual cameras of ``VirtualVideoDevices/shared``.
///
/// Equal and hashed by label, type and endpoint. Immutable, safe to share between threads.
public final class MediaDevice: Hashable, Sendable, CustomStringConvertible {
    /// The name shown to people, for example `Jabra EVOLVE 20 MS: USB Audio (input)` or `Tone 440 Hz`.
    public let label: String
    /// What kind of device it is.
    public let type: MediaDeviceType
    /// The port an app described the device with (``init(label:port:)``); nil for listed devices.
    public let port: AudioPortDescription?
    /// What it is on this machine.
    let endpoint: AudioDeviceEndpoint

    /// Creates a device description bound to no endpoint; choosing it selects the listed device with the same label
    /// and type.
    public convenience init(label: String, type: MediaDeviceType) {
        self.init(label: label, type: type, endpoint: .unspecified)
    }

    /// Creates a device description from an audio port, as on iOS: the type follows the port's
    /// (``AudioPortDescription/mediaDeviceType``), `other` without a port.
    public convenience init(label: String, port: AudioPortDescription? = nil) {
        self.init(label: label, type: port?.mediaDeviceType ?? .other, endpoint: .unspecified, port: port)
    }

    init(label: String, type: MediaDeviceType, endpoint: AudioDeviceEndpoint, port: AudioPortDescription? = nil) {
        self.label = label
        self.type = type
        self.endpoint = endpoint
        self.port = port
    }

    /// `<label> - <type>`, as in the Chime SDK.
    public var description: String { "\(label) - \(type)" }

    /// Whether this is a camera made of software (one of ``VirtualVideoDevices``: a pattern or a file), not a device
    /// of the machine. A Carillon addition: a bot says so rather than send a pattern when asked for a real camera.
    public var isVirtualCamera: Bool {
        if case .virtualCamera = endpoint { return true }
        return false
    }

    /// Equality as documented on the type.
    public static func == (lhs: MediaDevice, rhs: MediaDevice) -> Bool {
        lhs.label == rhs.label && lhs.type == rhs.type && lhs.endpoint == rhs.endpoint
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(label)
        hasher.combine(type)
        hasher.combine(endpoint)
    }
}

extension MediaDevice {
    /// The cameras: the machine's V4L2 cameras (video nodes in `/dev` that stream YUYV, NV12 or MJPEG; listed as
    /// front cameras labelled `<card> (<path>)`), then those of ``VirtualVideoDevices/shared`` (by default a front
    /// and a back pattern camera). Cost: opens each `/dev/video<N>` node for two ioctls.
    public static func listVideoDevices() -> [MediaDevice] { SystemCameras.shared.cameras }

    /// The formats `mediaDevice` captures up to 1280x720 (the default meeting cap), at up to 30 fps each, smallest
    /// first, without duplicates; empty unless it is a listed front or back camera (as on iOS).
    public static func listSupportedVideoCaptureFormats(mediaDevice: MediaDevice) -> [VideoCaptureFormat] {
        listSupportedVideoCaptureFormats(mediaDevice: mediaDevice, videoMaxResolution: .videoResolutionHD)
    }

    /// The formats `mediaDevice` captures within `videoMaxResolution`, at up to 30 fps each (higher rates are listed
    /// as 30), smallest first, without duplicates; empty unless it is a listed front or back camera (as on iOS).
    public static func listSupportedVideoCaptureFormats(mediaDevice: MediaDevice,
                                                        videoMaxResolution: VideoResolution) -> [VideoCaptureFormat] {
        supportedFormats(of: mediaDevice, in: SystemCameras.shared, videoMaxResolution: videoMaxResolution)
    }

    /// ``listSupportedVideoCaptureFormats(mediaDevice:videoMaxResolution:)`` over the cameras of `cameras`.
    static func supportedFormats(of device: MediaDevice, in cameras: any CameraDeviceProvider,
                                 videoMaxResolution: VideoResolution) -> [VideoCaptureFormat] {
        guard device.type == .videoFrontCamera || device.type == .videoBackCamera else { return [] }
        var seen = Set<VideoCaptureFormat>()
        return cameras.captureFormats(of: device)
            .filter { $0.width <= videoMaxResolution.width && $0.height <= videoMaxResolution.height }
            .map { VideoCaptureFormat(width: $0.width, height: $0.height,
                                      maxFrameRate: min($0.maxFrameRate, VideoCaptureFormat.maxSupportedFrameRate)) }
            .filter { seen.insert($0).inserted }
    }
}
