import CarillonCodecs
import Dispatch
import Synchronization
import Testing

@testable import Carillon

/// The real V4L2 path (the shim's ioctls, mmap, a driver's pacing) against the kernel's `vivid` test driver, when this
/// machine has it loaded (`modprobe vivid`); skipped otherwise (the project's machines have no V4L2 at all).
@Suite struct V4L2VividTests {
    /// The first node whose driver is vivid, if any.
    static let vividNode: String? = V4L2DeviceDirectory().nodePaths().first { path in
        guard let device = try? V4L2FileDevice(path: path) else { return false }
        defer { device.close() }
        return (try? device.queryCapabilities())?.driver == "vivid"
    }

    /// Counts frames and signals once `wanted` arrived.
    final class FrameCounter: VideoSink, @unchecked Sendable {
        let arrived = DispatchSemaphore(value: 0)
        let wanted: Int
        let frames = Mutex<[VideoFrame]>([])
        init(wanted: Int) { self.wanted = wanted }
        func onVideoFrameReceived(frame: VideoFrame) {
            if frames.withLock({ $0.append(frame); return $0.count }) == wanted { arrived.signal() }
        }
    }

    @Test(.enabled(if: vividNode != nil, "no vivid V4L2 device here (modprobe vivid): the real V4L2 path is not exercised"))
    func theVividCameraStreamsPicturesOfTheChosenFormat() throws {
        let path = try #require(Self.vividNode)
        let cameras = V4L2Cameras()
        let device = try #require(cameras.cameras.first { $0.endpoint == .v4l2Camera(path: path) })
        #expect(!cameras.captureFormats(of: device).isEmpty)
        let camera = DefaultCameraCaptureSource(logger: RecordingLogger(), cameras: cameras,
                                                eventLoop: CaptureLoop.sharedEventLoop,
                                                callbackQueue: DispatchQueue(label: "test.vivid.callbacks"))
        let sink = FrameCounter(wanted: 10)
        camera.addVideoSink(sink: sink)
        camera.device = device
        camera.format = VideoCaptureFormat(width: 640, height: 360, maxFrameRate: 30)
        camera.start()
        defer { camera.stop() }
        #expect(sink.arrived.wait(timeout: .now() + 10) == .success, "10 frames within 10 s")
        let frames = sink.frames.withLock { $0 }
        let chosen = try #require(VideoCaptureFormat(width: 640, height: 360, maxFrameRate: 30)
            .closest(in: cameras.captureFormats(of: device)))
        #expect(frames.allSatisfy { $0.width == chosen.width && $0.height == chosen.height })
    }
}
