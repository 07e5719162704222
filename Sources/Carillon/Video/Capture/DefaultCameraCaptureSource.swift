import Dispatch
import Foundation
import NIOCore

/// The SDK's camera capture: what `startLocalVideo()` sends, and what an app may create itself to choose the camera
/// and format, preview before joining, or feed a processor.
///
/// On iOS it drives AVFoundation. On Linux it captures from the cameras ``MediaDevice/listVideoDevices()`` lists: the
/// machine's V4L2 cameras (memory-mapped streaming of YUYV, NV12 or MJPEG, converted to I420), then the virtual
/// cameras of ``VirtualVideoDevices`` (pattern and Y4M-file cameras), all behind one device seam:
///
/// * The default ``device`` is the first front camera (the first camera of any type if there is none), chosen at
///   creation, or at ``start()`` if none was listed then. The default ``format`` is 1280x720 at 30 fps; capture uses
///   the camera's closest format (smallest |dw| + |dh|, then closest frame rate, Chime's rule) at
///   min(wanted, format's) frames a second. Setting ``device`` or ``format`` while capturing restarts the capture
///   (observers hear `captureDidStart` again).
/// * ``switchCamera()`` moves to the next listed camera, wrapping (front and back with the default cameras).
/// * No Linux camera has a torch: ``torchAvailable`` is false and ``torchEnabled`` snaps back to false (logged).
/// * ``videoContentHint`` is ``VideoContentHint/motion``.
/// * Frames are ``VideoFrameI420Buffer``s with rotation 0, timestamped with the capture loop's uptime clock; a
///   pattern camera's frame counter is the frame's index since the source was made. A V4L2 camera is read without
///   blocking at each tick: the newest picture since the last tick is sent (older ones are dropped), nothing when
///   none arrived; a size the driver adjusted is scaled to the chosen format's.
///
/// Failures: no camera, a camera that is gone or refuses its format, or a file that cannot be read make
/// `captureDidFail(.configurationFailure)` (and capture is stopped), at start or, for a V4L2 camera unplugged while
/// capturing, at the next tick (streaming is stopped and the device closed); a frame that cannot be made
/// `captureDidFail(.invalidFrame)` (capture goes on).
///
/// Threading: every member may be used from any thread. Capture runs on an event loop thread of its own, shared by
/// the capture sources of the process; sinks are called there (keep them quick). Observers are called
/// asynchronously, in order, on a serial queue of the source's own (the session's callback queue for the session's
/// camera). The analytics events of iOS (`videoInputSelected`, `videoInputFailed`) are not published.
public final class DefaultCameraCaptureSource: CameraCaptureSource, @unchecked Sendable {
    private let logger: any Logger
    private let cameras: any CameraDeviceProvider
    private let capture: CaptureLoop
    private let lock = NSLock()
    // Guarded by `lock`.
    private var hint = VideoContentHint.motion
    private var chosenDevice: MediaDevice?
    private var chosenFormat = VideoCaptureFormat.defaultCamera

    /// Creates a camera capture on the first front camera, not capturing yet.
    public convenience init(logger: any Logger) {
        self.init(logger: logger, cameras: SystemCameras.shared, eventLoop: CaptureLoop.sharedEventLoop,
                  callbackQueue: DispatchQueue(label: "carillon.camera.callbacks"))
    }

    /// Creates a camera capture over the cameras of `cameras`, capturing on `eventLoop` and calling observers on
    /// `callbackQueue`.
    init(logger: any Logger, cameras: any CameraDeviceProvider, eventLoop: any EventLoop, callbackQueue: DispatchQueue) {
        self.logger = logger
        self.cameras = cameras
        capture = CaptureLoop(eventLoop: eventLoop, callbackQueue: callbackQueue)
        chosenDevice = Self.defaultDevice(in: cameras.cameras)
    }

    /// ``VideoContentHint/motion`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { lock.withLock { hint } }
        set { lock.withLock { hint = newValue } }
    }

    /// See ``CameraCaptureSource/device``; setting the same device again changes nothing.
    public var device: MediaDevice? {
        get { lock.withLock { chosenDevice } }
        set {
            let changed = lock.withLock {
                defer { chosenDevice = newValue }
                return chosenDevice != newValue
            }
            guard changed else { return }
            logger.info(msg: "DefaultCameraCaptureSource: camera is now \(newValue.map { "\($0)" } ?? "none")")
            if capture.isRunning { startCapture() }
        }
    }

    /// See ``CameraCaptureSource/format``; setting an equal format again changes nothing.
    public var format: VideoCaptureFormat {
        get { lock.withLock { chosenFormat } }
        set {
            let changed = lock.withLock {
                defer { chosenFormat = newValue }
                return chosenFormat != newValue
            }
            if changed, capture.isRunning { startCapture() }
        }
    }

    /// Always false: no Linux camera has a torch. Setting true logs that and leaves it false.
    public var torchEnabled: Bool {
        get { false }
        set { if newValue { logger.info(msg: "Torch is not available on current camera.") } }
    }

    /// Always false: no Linux camera has a torch.
    public var torchAvailable: Bool { false }

    /// See ``VideoCaptureSource/start()``.
    public func start() { startCapture() }

    /// See ``VideoCaptureSource/stop()``; does nothing when not capturing.
    public func stop() { capture.stop() }

    /// Moves to the camera listed after the current one (the first one when the current is not listed), wrapping;
    /// restarts the capture if it runs. Logs an error and changes nothing when no camera is listed.
    public func switchCamera() {
        let list = cameras.cameras
        guard !list.isEmpty else {
            logger.error(msg: "switchCamera: no camera is available")
            return
        }
        let current = device
        let next = current.flatMap { list.firstIndex(of: $0) }.map { list[($0 + 1) % list.count] } ?? list[0]
        device = next
    }

    /// See ``VideoSource/addVideoSink(sink:)``: the sink is called on the capture loop.
    public func addVideoSink(sink: any VideoSink) { capture.addSink(sink) }
    /// See ``VideoSource/removeVideoSink(sink:)``.
    public func removeVideoSink(sink: any VideoSink) { capture.removeSink(sink) }
    /// See ``VideoCaptureSource/addCaptureSourceObserver(observer:)``.
    public func addCaptureSourceObserver(observer: any CaptureSourceObserver) { capture.addObserver(observer) }
    /// See ``VideoCaptureSource/removeCaptureSourceObserver(observer:)``.
    public func removeCaptureSourceObserver(observer: any CaptureSourceObserver) { capture.removeObserver(observer) }

    /// Whether capture runs (or is about to).
    var isCapturing: Bool { capture.isRunning }

    /// Whether there is a camera to capture from: the chosen one, or one listed now.
    var hasCamera: Bool { device != nil || !cameras.cameras.isEmpty }

    // MARK: Private

    private static func defaultDevice(in cameras: [MediaDevice]) -> MediaDevice? {
        cameras.first { $0.type == .videoFrontCamera } ?? cameras.first
    }

    private func startCapture() {
        let cameras = self.cameras, carried = CrossThreadLogger(self.logger)
        let listed = cameras.cameras
        let (device, format) = lock.withLock {
            if chosenDevice == nil { chosenDevice = Self.defaultDevice(in: listed) }
            return (chosenDevice, chosenFormat)
        }
        capture.start { () throws(CaptureSourceError) -> CaptureSetup in
            let logger = carried.logger
            guard let device else {
                logger.error(msg: "DefaultCameraCaptureSource: no camera to capture from")
                throw .configurationFailure
            }
            guard let chosen = format.closest(in: cameras.captureFormats(of: device)) else {
                logger.error(msg: "DefaultCameraCaptureSource: \(device) is not an available camera")
                throw .configurationFailure
            }
            let fps = max(1, min(format.maxFrameRate, chosen.maxFrameRate))
            // The camera's size at the rate capture runs at (a V4L2 camera asks its driver for that rate).
            let opened = VideoCaptureFormat(width: chosen.width, height: chosen.height, maxFrameRate: fps)
            let producer = try cameras.openCamera(device, format: opened, logger: logger)
            logger.info(msg: "DefaultCameraCaptureSource: capturing \(device) at \(chosen.width)x\(chosen.height) @ \(fps) fps")
            return CaptureSetup(producer: producer, framesPerSecond: fps)
        }
    }
}
