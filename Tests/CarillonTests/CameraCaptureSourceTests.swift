import CarillonCodecs
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import Carillon

/// The SDK's camera over virtual cameras, paced on a virtual-time loop.
@Suite struct CameraCaptureSourceTests {
    let loop = EmbeddedEventLoop()
    let callbacks = TestCallbackQueue()
    let cameras = VirtualVideoDevices()
    let logger = RecordingLogger()

    func camera(_ cameras: VirtualVideoDevices? = nil) -> DefaultCameraCaptureSource {
        DefaultCameraCaptureSource(logger: logger, cameras: cameras ?? self.cameras, eventLoop: loop,
                                   callbackQueue: callbacks.queue)
    }

    @Test func thePatternCameraDeliversCountedFramesOfTheFormatAtItsRate() throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        #expect(camera.device?.type == .videoFrontCamera)
        #expect(camera.format == VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 30))
        #expect(camera.videoContentHint == .motion)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        loop.advanceTime(by: .seconds(1))
        callbacks.drain()
        #expect(observer.events == ["start"])
        #expect(observer.offQueue == 0)
        // The first frame at once, then one every 1/15 s.
        #expect(sink.counters == (0...15).map { $0 })
        #expect(sink.received.allSatisfy { $0.width == 320 && $0.height == 180 && $0.rotation == .rotation0 })
        let times = sink.received.map(\.timestampNs)
        #expect(times.first == 0)
        #expect(zip(times, times.dropFirst()).allSatisfy { (66_666_666...66_666_667).contains($1 - $0) })
        let reading = VideoPatternReading(try #require(sink.received.last?.buffer as? VideoFrameI420Buffer).image)
        #expect(reading.nearestColor() == .blue)
    }

    /// A tick the loop gets to late (busy drawing a slide) is stamped with its place on the grid, and so is the next
    /// one, due soon after: the pictures stay 1/fps apart for the encoder's frame-rate cap and the receiver's
    /// playout instead of arriving 17 ms apart. A stall past the clock's 500 ms catch-up bound skips the frames whose
    /// time passed, and the grid keeps its phase.
    @Test func lateTicksAreStampedWithTheirPlaceOnTheGrid() throws {
        let late = LateEventLoop(base: loop)
        let camera = DefaultCameraCaptureSource(logger: logger, cameras: cameras, eventLoop: late,
                                                callbackQueue: callbacks.queue)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 160, height: 90, maxFrameRate: 15)
        camera.start()
        loop.advanceTime(by: .milliseconds(210))
        try #require(sink.count == 4)
        // Frame 4 (due at 266.7 ms) runs 50 ms late, frame 5 on time.
        late.lateness = .milliseconds(50)
        loop.advanceTime(by: .milliseconds(100))
        try #require(sink.count == 5)
        late.lateness = .zero
        loop.advanceTime(by: .milliseconds(300))
        try #require(sink.count == 10)
        // Frame 10 (due at 666.7 ms) runs 700 ms late: it is the frame of the slot `now` falls in (the 20th).
        late.lateness = .milliseconds(700)
        loop.advanceTime(by: .milliseconds(60))
        try #require(sink.count == 11)
        late.lateness = .zero
        loop.advanceTime(by: .milliseconds(800))
        #expect(sink.counters == (0...12).map { $0 })
        let period: Int64 = 1_000_000_000 / 15
        #expect(sink.received.map(\.timestampNs) == (Array(0...9) + [20, 21, 22]).map { $0 * period })
    }

    @Test func stopStopsTheFramesAndTellsObservers() {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 160, height: 90, maxFrameRate: 10)
        camera.start()
        loop.advanceTime(by: .milliseconds(250))
        #expect(sink.count == 3)
        camera.stop()
        loop.advanceTime(by: .seconds(2))
        #expect(sink.count == 3)
        // Stopping again does nothing; a removed sink gets nothing after a restart.
        camera.stop()
        camera.removeVideoSink(sink: sink)
        camera.start()
        loop.advanceTime(by: .seconds(1))
        callbacks.drain()
        #expect(sink.count == 3)
        #expect(observer.events == ["start", "stop", "start"])
    }

    @Test func changingTheFormatWhileRunningRestartsAtTheClosestFormat() {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 30)
        camera.start()
        loop.advanceTime(by: .milliseconds(100))
        let before = sink.count
        // Not a listed size: the closest listed one (640x360) is captured, at the wanted 10 fps.
        camera.format = VideoCaptureFormat(width: 630, height: 350, maxFrameRate: 10)
        loop.advanceTime(by: .milliseconds(500))
        callbacks.drain()
        #expect(observer.events == ["start", "start"])
        let after = sink.received.dropFirst(before)
        #expect(after.count == 6)
        #expect(after.allSatisfy { $0.width == 640 && $0.height == 360 })
        #expect(sink.counters == (0..<sink.count).map { $0 }, "the counter goes on across the restart")
        // Setting an equal format does not restart.
        camera.format = VideoCaptureFormat(width: 630, height: 350, maxFrameRate: 10)
        callbacks.drain()
        #expect(observer.events == ["start", "start"])
    }

    @Test func switchCameraCyclesTheListedCamerasAndRestartsTheCapture() throws {
        let red = cameras.addPatternCamera(color: .red, type: .videoBackCamera)
        let camera = camera()
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 160, height: 90, maxFrameRate: 10)
        camera.start()
        func colour() throws -> VideoTestPattern.Color? {
            VideoPatternReading(try #require(sink.received.last?.buffer as? VideoFrameI420Buffer).image).nearestColor()
        }
        #expect(try colour() == .blue)
        camera.switchCamera()
        #expect(camera.device?.type == .videoBackCamera)
        #expect(try colour() == .orange)
        camera.switchCamera()
        #expect(camera.device == red)
        #expect(try colour() == .red)
        camera.switchCamera()
        #expect(camera.device?.type == .videoFrontCamera)
        #expect(try colour() == .blue)
        // A device made by the app stands for the registered camera with its label and type.
        camera.device = MediaDevice(label: "Pattern camera (red)", type: .videoBackCamera)
        #expect(try colour() == .red)
    }

    @Test func theTorchIsNeverAvailable() {
        let camera = camera()
        camera.torchEnabled = true
        #expect(camera.torchEnabled == false)
        #expect(camera.torchAvailable == false)
        #expect(logger.messages(at: .INFO).contains("Torch is not available on current camera."))
    }

    @Test func withoutACameraCaptureFailsAsAConfigurationFailure() {
        let camera = camera(VirtualVideoDevices(includingDefaults: false))
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        #expect(camera.device == nil)
        camera.start()
        loop.advanceTime(by: .seconds(1))
        callbacks.drain()
        #expect(observer.events == ["fail:configurationFailure"])
        #expect(sink.count == 0)
        camera.switchCamera()
        #expect(logger.messages(at: .ERROR).contains("switchCamera: no camera is available"))
    }

    @Test func aY4MCameraLoopsItsFileScaledToTheChosenFormat() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("camera-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .magenta)
        let writer = try Y4MWriter(path: path, header: Y4MHeader(width: 320, height: 180, frameRate: .init(60, 1)))
        for index in 0..<3 { try writer.append(pattern.image(frame: index)) }
        try writer.close()
        let device = try cameras.addY4MFileCamera(path: path, type: .videoBackCamera)
        #expect(try cameras.addY4MFileCamera(path: path, type: .videoBackCamera) === device)
        // Listed at 30 fps at most, within the cap.
        let listed = MediaDevice.supportedFormats(of: device, in: cameras, videoMaxResolution: .videoResolutionHD)
        #expect(listed.contains(VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 30)))
        #expect(listed.allSatisfy { $0.maxFrameRate == 30 && $0.width <= 1280 && $0.height <= 720 })
        #expect(cameras.captureFormats(of: device).contains(VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 60)))
        let camera = camera()
        camera.device = device
        camera.format = VideoCaptureFormat(width: 160, height: 90, maxFrameRate: 20)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.start()
        loop.advanceTime(by: .milliseconds(300))
        #expect(sink.counters == [0, 1, 2, 0, 1, 2, 0])
        #expect(sink.received.allSatisfy { $0.width == 160 && $0.height == 90 })
    }

    @Test func formatsAreListedForFrontAndBackCamerasWithinTheCap() throws {
        let front = try #require(cameras.devices.first)
        #expect(front.type == .videoFrontCamera && front.label == "Pattern camera (blue)")
        let formats = MediaDevice.supportedFormats(of: front, in: cameras, videoMaxResolution: .videoResolutionHD)
        #expect(formats.map { "\($0.width)x\($0.height)" } == ["160x90", "320x180", "480x270", "640x360", "960x540", "1280x720"])
        #expect(MediaDevice.supportedFormats(of: front, in: cameras, videoMaxResolution: .videoDisabled).isEmpty)
        #expect(MediaDevice.supportedFormats(of: front, in: cameras, videoMaxResolution: .videoResolutionFHD).count == 7)
        let other = cameras.addPatternCamera(color: .cyan, type: .other)
        #expect(MediaDevice.supportedFormats(of: other, in: cameras, videoMaxResolution: .videoResolutionHD).isEmpty)
        // The process-wide listing has the default front camera.
        #expect(MediaDevice.listVideoDevices().contains { $0.type == .videoFrontCamera })
        #expect(!MediaDevice.listSupportedVideoCaptureFormats(mediaDevice: MediaDevice.listVideoDevices()[0]).isEmpty)
    }

    @Test func specificationsNameVirtualCameras() throws {
        let registry = VirtualVideoDevices(includingDefaults: false)
        let red = try registry.add(specification: "pattern:Red")
        #expect(red.label == "Pattern camera (red)" && red.type == .videoFrontCamera)
        #expect(try registry.add(specification: "pattern").label == "Pattern camera (blue)")
        #expect(throws: VirtualVideoDeviceError.unknownColor("teal")) { try registry.add(specification: "pattern:teal") }
        #expect(throws: VirtualVideoDeviceError.invalidSpecification("webcam")) { try registry.add(specification: "webcam") }
        #expect(throws: VirtualVideoDeviceError.self) { try registry.add(specification: "y4m:/nonexistent/file.y4m") }
        #expect(registry.devices.count == 2)
        registry.remove(red)
        #expect(registry.devices.map(\.label) == ["Pattern camera (blue)"])
        // Cameras are not audio devices.
        let controller = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(), soundCards: { [] })
        controller.chooseAudioDevice(mediaDevice: registry.devices[0])
        #expect(controller.getActiveAudioDevice()?.label == "Silence")
    }
}
