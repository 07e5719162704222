import CarillonCodecs
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import Carillon

/// The SDK's camera on V4L2 cameras, against scripted devices (the project's machines have none), paced on a
/// virtual-time loop: listing, format negotiation, streaming, conversion of each pixel format, restarts, unplugging.
@Suite struct V4L2CameraTests {
    let loop = EmbeddedEventLoop()
    let callbacks = TestCallbackQueue()
    let logger = RecordingLogger()
    let webcam: ScriptedV4L2Device
    let nodes: ScriptedV4L2Nodes
    let cameras: SystemCameras

    init() {
        let capture = V4L2Capabilities.videoCapture | V4L2Capabilities.streaming
        let webcam = ScriptedV4L2Device(offers: [
            .init(pixelFormat: .yuyv, sizes: [.discrete(width: 320, height: 180), .discrete(width: 640, height: 360)], frameRate: 30),
            .init(pixelFormat: .mjpeg, sizes: [.discrete(width: 64, height: 48), .discrete(width: 1280, height: 720)], frameRate: 30),
        ])
        self.webcam = webcam
        let metadata = ScriptedV4L2Device(offers: webcam.offers)
        metadata.capabilities = V4L2Capabilities(driver: "uvcvideo", card: "Metadata", busInfo: "usb-1",
                                                 capabilities: 0x0080_0000 | V4L2Capabilities.streaming)
        let grey = ScriptedV4L2Device(offers: [.init(pixelFormat: V4L2PixelFormat("GREY"), sizes: [.discrete(width: 640, height: 480)],
                                                     frameRate: 30)])
        grey.capabilities = V4L2Capabilities(driver: "ir", card: "IR camera", busInfo: "usb-2", capabilities: capture)
        nodes = ScriptedV4L2Nodes([("/dev/video0", webcam), ("/dev/video1", metadata), ("/dev/video2", grey)])
        cameras = SystemCameras(v4l2: V4L2Cameras(nodes: nodes), virtual: VirtualVideoDevices())
    }

    func camera() -> DefaultCameraCaptureSource {
        DefaultCameraCaptureSource(logger: logger, cameras: cameras, eventLoop: loop, callbackQueue: callbacks.queue)
    }

    /// A little more than a frame at 15 fps (frame n is due at n/15 s, rounded down to the nanosecond): each step
    /// crosses one frame time for the first 200 steps.
    var frameTime: TimeAmount { .milliseconds(67) }

    // MARK: Listing

    @Test func capturingNodesAreListedFirstWithTheirFormats() throws {
        let listed = cameras.cameras
        #expect(listed.map(\.label) == ["Scripted Camera (/dev/video0)", "Pattern camera (blue)", "Pattern camera (orange)"])
        let webcam = try #require(listed.first)
        #expect(webcam.type == .videoFrontCamera)
        #expect(webcam.endpoint == .v4l2Camera(path: "/dev/video0"))
        #expect(MediaDevice.supportedFormats(of: webcam, in: cameras, videoMaxResolution: .videoResolutionHD)
            == [(64, 48), (320, 180), (640, 360), (1280, 720)].map { VideoCaptureFormat(width: $0.0, height: $0.1, maxFrameRate: 30) })
        // The SDK's camera picks the first front camera: the webcam.
        #expect(camera().device == webcam)
        // A busy node is left out; so is a node that is gone.
        nodes.busy = ["/dev/video0"]
        #expect(cameras.cameras.count == 2)
        nodes.busy = []
        nodes.unplug("/dev/video0")
        #expect(cameras.cameras.map(\.label) == ["Pattern camera (blue)", "Pattern camera (orange)"])
    }

    // MARK: Streaming and conversion

    @Test func yuyvPicturesArriveAsTheSameI420PicturesNewestFirst() throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        let yuyv = V4L2FrameFormat(pixelFormat: .yuyv, width: 320, height: 180)
        let maps = (0..<4).map { V4L2Request.mapBuffer(index: $0) }, queues = (0..<4).map { V4L2Request.queueBuffer(index: $0) }
        let start: [V4L2Request] = [.setFormat(yuyv), .setFrameRate(15), .requestBuffers(count: 4)]
        #expect(webcam.log == start + maps + queues + [.streamOn, .dequeueBuffer])
        // The first tick found nothing: nothing is sent.
        #expect(sink.count == 0)
        let pictures = (0..<4).map { try! VideoTestPattern(width: 320, height: 180, color: .green).image(frame: $0) }
        webcam.log = []
        webcam.arrive(Self.yuyv(pictures[1]))
        loop.advanceTime(by: frameTime)
        #expect(sink.count == 1)
        #expect(try image(sink.received[0]) == pictures[1])
        #expect(webcam.log == [.dequeueBuffer, .dequeueBuffer, .queueBuffer(index: 0)])
        // Two pictures within one tick: the newer one is sent, both buffers go back to the driver.
        webcam.arrive(Self.yuyv(pictures[2]))
        webcam.arrive(Self.yuyv(pictures[3]))
        loop.advanceTime(by: frameTime)
        #expect(sink.count == 2)
        #expect(try image(sink.received[1]) == pictures[3])
        #expect(VideoPatternReading(try image(sink.received[1])).counter == 3)
        #expect(Set(webcam.queuedBuffers) == [0, 1, 2, 3])
        // A tick without a picture sends nothing; nothing is reported.
        loop.advanceTime(by: frameTime * 3)
        #expect(sink.count == 2)
        callbacks.drain()
        #expect(observer.events == ["start"])
        camera.stop()
        callbacks.drain()
        #expect(observer.events == ["start", "stop"])
        #expect(webcam.log.suffix(2) == [.streamOff, .releaseBuffers])
        #expect(webcam.openHandles.isEmpty)
        #expect(webcam.bufferCount == 0)
    }

    @Test func nv12PicturesWithPaddedRowsConvertExactly() throws {
        webcam.offers = [.init(pixelFormat: .nv12, sizes: [.discrete(width: 320, height: 180)], frameRate: 30)]
        webcam.setFormat = { V4L2FrameFormat(pixelFormat: $0.pixelFormat, width: $0.width, height: $0.height, bytesPerLine: 384) }
        let camera = camera()
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        let picture = try VideoTestPattern(width: 320, height: 180, color: .magenta).image(frame: 42)
        webcam.arrive(Self.nv12(picture, stride: 384))
        loop.advanceTime(by: frameTime)
        #expect(sink.count == 1)
        #expect(try image(sink.received[0]) == picture)
    }

    @Test(arguments: [false, true])
    func mjpegPicturesDecodeToTheirColours(withoutHuffmanTables: Bool) throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 64, height: 48, maxFrameRate: 15)
        camera.start()
        #expect(webcam.log.first == .setFormat(V4L2FrameFormat(pixelFormat: .mjpeg, width: 64, height: 48)))
        webcam.arrive(withoutHuffmanTables ? MJPEGFixtures.pictureWithoutHuffmanTables : MJPEGFixtures.picture)
        loop.advanceTime(by: frameTime)
        #expect(sink.count == 1)
        let decoded = try image(sink.received[0])
        for (quadrant, expected) in MJPEGFixtures.quadrants.enumerated() {
            let mean = Self.mean(decoded, quadrant: quadrant)
            #expect(abs(mean.y - Double(expected.y)) < 3, "quadrant \(quadrant) Y")
            #expect(abs(mean.u - Double(expected.u)) < 3, "quadrant \(quadrant) U")
            #expect(abs(mean.v - Double(expected.v)) < 3, "quadrant \(quadrant) V")
        }
        // A damaged picture is an invalid frame; capture goes on.
        webcam.arrive(Array(MJPEGFixtures.picture.prefix(200)))
        loop.advanceTime(by: frameTime)
        webcam.arrive(MJPEGFixtures.picture)
        loop.advanceTime(by: frameTime)
        callbacks.drain()
        #expect(observer.events == ["start", "fail:invalidFrame"])
        #expect(sink.count == 2)
    }

    // MARK: Negotiation

    @Test func aSizeTheDriverAdjustsIsScaledToTheChosenFormat() throws {
        webcam.setFormat = { _ in V4L2FrameFormat(pixelFormat: .yuyv, width: 640, height: 480) }
        let camera = camera()
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 640, height: 360, maxFrameRate: 15)
        camera.start()
        let picture = try VideoTestPattern(width: 640, height: 480, color: .yellow).image(frame: 5)
        webcam.arrive(Self.yuyv(picture))
        loop.advanceTime(by: frameTime)
        let frame = try #require(sink.received.first)
        #expect((frame.width, frame.height) == (640, 360))
        #expect(try image(frame) == picture.scaled(width: 640, height: 360))
        #expect(logger.messages(at: .INFO).contains("V4L2 /dev/video0: the driver set 640x480; pictures are scaled to 640x360"))
    }

    @Test func aPixelFormatTheDriverSwapsForOneThatCannotBeConvertedFailsTheStart() {
        webcam.setFormat = { V4L2FrameFormat(pixelFormat: V4L2PixelFormat("GREY"), width: $0.width, height: $0.height) }
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        camera.start()
        callbacks.drain()
        #expect(observer.events == ["fail:configurationFailure"])
        #expect(!camera.isCapturing)
        #expect(webcam.openHandles.isEmpty)
        // A device another process holds fails the same way.
        webcam.setFormat = nil
        nodes.busy = ["/dev/video0"]
        camera.start()
        callbacks.drain()
        #expect(observer.events == ["fail:configurationFailure", "fail:configurationFailure"])
    }

    // MARK: Restarts and failures

    @Test func aFormatChangeRestartsTheStreamAndSwitchCameraLeavesTheDevice() throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        webcam.log = []
        camera.format = VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 30)
        #expect(Array(webcam.log.prefix(4)) == [.streamOff, .releaseBuffers,
                                                .setFormat(V4L2FrameFormat(pixelFormat: .mjpeg, width: 1280, height: 720)),
                                                .setFrameRate(30)])
        #expect(webcam.streaming)
        #expect(webcam.openHandles.count == 1)
        // The next camera is the blue pattern camera: the webcam is let go of.
        camera.switchCamera()
        #expect(camera.device?.label == "Pattern camera (blue)")
        #expect(webcam.openHandles.isEmpty)
        #expect(!webcam.streaming)
        #expect(VideoPatternReading(try image(try #require(sink.received.last))).nearestColor() == .blue)
        camera.switchCamera()
        camera.switchCamera()
        #expect(camera.device?.label == "Scripted Camera (/dev/video0)")
        #expect(webcam.streaming)
        callbacks.drain()
        #expect(observer.events == ["start", "start", "start", "start", "start"])
    }

    @Test func aDeviceUnpluggedWhileCapturingFailsAndStopsCleanly() throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        camera.addVideoSink(sink: sink)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        webcam.arrive(Self.yuyv(try VideoTestPattern(width: 320, height: 180, color: .red).image(frame: 0)))
        loop.advanceTime(by: frameTime)
        #expect(sink.count == 1)
        webcam.log = []
        nodes.unplug("/dev/video0")
        loop.advanceTime(by: frameTime)
        callbacks.drain()
        #expect(observer.events == ["start", "fail:configurationFailure"])
        #expect(webcam.log == [.dequeueBuffer, .streamOff, .releaseBuffers])
        #expect(webcam.openHandles.isEmpty)
        #expect(webcam.bufferCount == 0)
        #expect(!camera.isCapturing)
        loop.advanceTime(by: .seconds(1))
        #expect(sink.count == 1)
        #expect(webcam.log.count == 3, "nothing is asked of a device that is gone")
        camera.stop()
        callbacks.drain()
        #expect(observer.events == ["start", "fail:configurationFailure"], "a failed capture is already stopped")
        #expect(logger.messages(at: .ERROR).contains { $0.hasPrefix("V4L2 /dev/video0: capture stopped: DQBUF failed:") })
    }

    @Test func aCameraThatStreamsButDeliversNothingFailsAfterFiveSeconds() throws {
        let camera = camera()
        let observer = CaptureEvents(queueKey: callbacks.key)
        camera.addCaptureSourceObserver(observer: observer)
        camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        camera.start()
        // Streaming, but no picture ever arrives (another program holds the camera, a stalled driver).
        loop.advanceTime(by: .milliseconds(4_900))
        callbacks.drain()
        #expect(observer.events == ["start"])
        #expect(camera.isCapturing)
        loop.advanceTime(by: .milliseconds(200))
        callbacks.drain()
        #expect(observer.events == ["start", "fail:configurationFailure"])
        #expect(!camera.isCapturing)
        #expect(webcam.openHandles.isEmpty)
        #expect(logger.messages(at: .ERROR).contains { $0.contains("no picture for 5 s") })
    }

    @Test func theDeviceControllerSwitchesAndReportsTheSessionCamera() {
        let controller = DefaultDeviceController(logger: logger, virtualDevices: VirtualAudioDevices(),
                                                 callbackQueue: callbacks.queue, soundCards: { [] })
        let camera = camera()
        controller.useCamera(camera)
        #expect(controller.getActiveCamera()?.label == "Scripted Camera (/dev/video0)")
        controller.switchCamera()
        #expect(controller.getActiveCamera()?.label == "Pattern camera (blue)")
        controller.setCameraInUse(false)
        #expect(controller.getActiveCamera() == nil)
        controller.switchCamera()
        #expect(camera.device?.label == "Pattern camera (blue)", "not switched while an app's source is in use")
    }

    @Test func theSessionSendsTheWebcamAndItsDeviceControllerSwitchesAwayFromIt() throws {
        let urls = MeetingSessionURLs(audioFallbackUrl: "ws://127.0.0.1:1/calls/m", audioHostUrl: "127.0.0.1:1",
                                      turnControlUrl: "http://127.0.0.1:1/turn", signalingUrl: "ws://127.0.0.1:1/control/m",
                                      urlRewriter: URLRewriterUtils.defaultUrlRewriter)
        let configuration = MeetingSessionConfiguration(
            meetingId: "m", externalMeetingId: nil,
            credentials: MeetingSessionCredentials(attendeeId: "a-1", externalUserId: "alice", joinToken: "t"),
            urls: urls, urlRewriter: URLRewriterUtils.defaultUrlRewriter, meetingFeatures: MeetingFeatures())
        let control = FakeVideoControl()
        let audioVideo = DefaultAudioVideoFacade(configuration: configuration, logger: logger, callbackQueue: callbacks.queue,
                                                 videoControl: control, cameras: cameras, captureEventLoop: loop)
        audioVideo.camera.format = VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 15)
        #expect(audioVideo.getActiveCamera()?.label == "Scripted Camera (/dev/video0)")
        try audioVideo.startLocalVideo()
        let picture = try VideoTestPattern(width: 320, height: 180, color: .cyan).image(frame: 77)
        webcam.arrive(Self.yuyv(picture))
        loop.advanceTime(by: frameTime)
        #expect(control.frames.map(\.image) == [picture])
        audioVideo.switchCamera()
        #expect(audioVideo.getActiveCamera()?.label == "Pattern camera (blue)")
        #expect(webcam.openHandles.isEmpty)
        #expect(VideoPatternReading(try #require(control.frames.last?.image)).nearestColor() == .blue)
        audioVideo.stopLocalVideo()
    }

    // MARK: Helpers

    private func image(_ frame: VideoFrame) throws -> I420Image {
        try #require(frame.buffer as? VideoFrameI420Buffer).image
    }

    /// `picture` packed as YUYV, each chroma sample on both of its rows (so converting back gives it exactly).
    static func yuyv(_ picture: I420Image) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(picture.chromaWidth * 4 * picture.height)
        for y in 0..<picture.height {
            for pair in 0..<picture.chromaWidth {
                let left = picture.pixel(x: 2 * pair, y: y)
                let right = picture.pixel(x: min(2 * pair + 1, picture.width - 1), y: y)
                bytes += [left.y, left.u, right.y, left.v]
            }
        }
        return bytes
    }

    /// `picture` as NV12 with rows `stride` bytes apart.
    static func nv12(_ picture: I420Image, stride: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: stride * (picture.height + picture.chromaHeight))
        for y in 0..<picture.height {
            for x in 0..<picture.width { bytes[y * stride + x] = picture.pixel(x: x, y: y).y }
        }
        for row in 0..<picture.chromaHeight {
            for column in 0..<picture.chromaWidth {
                let sample = picture.pixel(x: 2 * column, y: 2 * row)
                bytes[(picture.height + row) * stride + 2 * column] = sample.u
                bytes[(picture.height + row) * stride + 2 * column + 1] = sample.v
            }
        }
        return bytes
    }

    /// The mean Y, U, V of a quadrant (0 top left ... 3 bottom right) of `image`, 4 pixels in from its edges.
    static func mean(_ image: I420Image, quadrant: Int) -> (y: Double, u: Double, v: Double) {
        let (w, h) = (image.width / 2, image.height / 2)
        let (x0, y0) = ((quadrant % 2) * w, (quadrant / 2) * h)
        var sum = (0.0, 0.0, 0.0), count = 0.0
        for y in (y0 + 4)..<(y0 + h - 4) {
            for x in (x0 + 4)..<(x0 + w - 4) {
                let p = image.pixel(x: x, y: y)
                sum = (sum.0 + Double(p.y), sum.1 + Double(p.u), sum.2 + Double(p.v))
                count += 1
            }
        }
        return (sum.0 / count, sum.1 / count, sum.2 / count)
    }
}

/// The conversion of one V4L2 buffer, alone.
@Suite struct V4L2FrameConversionTests {
    @Test func buffersThatDoNotHoldTheirFormatsPictureAreErrors() throws {
        let mjpeg = V4L2FrameFormat(pixelFormat: .mjpeg, width: MJPEGFixtures.width, height: MJPEGFixtures.height)
        try MJPEGFixtures.picture.withUnsafeBytes { bytes in
            let picture = try mjpeg.picture(from: bytes)
            #expect((picture.width, picture.height) == (64, 48))
            // The JPEG is 64x48: asked for as another size, it is refused rather than cropped.
            var other = mjpeg
            other.width = 32
            #expect(throws: I420ImageError.conversionFailed(function: "MJPGToI420", status: 1)) { try other.picture(from: bytes) }
            #expect(throws: I420ImageError.self) { try mjpeg.picture(from: UnsafeRawBufferPointer(rebasing: bytes[..<0])) }
            let grey = V4L2FrameFormat(pixelFormat: V4L2PixelFormat("GREY"), width: 64, height: 48)
            #expect(throws: I420ImageError.conversionFailed(function: "V4L2 GREY", status: -1)) { try grey.picture(from: bytes) }
        }
        // A YUYV buffer one row short.
        let yuyv = V4L2FrameFormat(pixelFormat: .yuyv, width: 64, height: 48, bytesPerLine: 128)
        let shortBuffer = [UInt8](repeating: 128, count: 128 * 47)
        let failure = shortBuffer.withUnsafeBytes { bytes in
            #expect(throws: I420ImageError.bufferTooSmall(plane: "YUYV", count: 128 * 47, needed: 128 * 48)) {
                try yuyv.picture(from: bytes)
            }
        }
        #expect(failure != nil)
    }
}
