import Testing

@testable import Carillon

/// The V4L2 capture sequence and buffer states, fed exact replies.
@Suite struct V4L2CaptureCoreTests {
    static let asked = V4L2FrameFormat(pixelFormat: .yuyv, width: 640, height: 360)
    static let set = V4L2FrameFormat(pixelFormat: .yuyv, width: 640, height: 360, bytesPerLine: 1280, sizeImage: 460_800)

    /// Makes the calls the core asks for, answering each with `reply`, and returns them.
    static func drive(_ core: inout V4L2CaptureCore, _ reply: (V4L2Request) -> V4L2Reply) -> [V4L2Request] {
        var made: [V4L2Request] = []
        while let request = core.nextRequest() {
            made.append(request)
            core.handle(reply(request))
        }
        return made
    }

    /// A driver that grants what is asked and sets `set`.
    static func willing(_ request: V4L2Request) -> V4L2Reply {
        switch request {
        case .setFormat: .formatSet(set)
        case .setFrameRate(let fps): .frameRateSet(fps)
        case .requestBuffers(let count): .buffersGranted(count)
        case .mapBuffer(let index): .bufferMapped(index: index, length: set.sizeImage)
        case .dequeueBuffer: .failed(.wouldBlock)
        default: .done
        }
    }

    static func streaming(buffers: Int = 3) -> V4L2CaptureCore {
        var core = V4L2CaptureCore(wanted: asked, framesPerSecond: 15, bufferCount: buffers)
        core.start()
        _ = drive(&core, willing)
        _ = core.takeEvents()
        return core
    }

    @Test func aCameraThatDeliversNothingForFiveSecondsOfPollsFails() {
        var core = Self.streaming()
        // 15 fps: 74 empty polls are under 5 s and go on; a picture starts the count again.
        for _ in 0..<74 {
            core.poll()
            _ = Self.drive(&core, Self.willing)
        }
        #expect(core.takeEvents() == Array(repeating: .noFrame, count: 74))
        core.poll()
        var filled = true
        _ = Self.drive(&core) { request in
            guard request == .dequeueBuffer, filled else { return Self.willing(request) }
            filled = false
            return .bufferDequeued(index: 0, bytesUsed: 100, corrupt: false)
        }
        #expect(core.takeEvents() == [.frame(index: 0, bytesUsed: 100)])
        #expect(core.emptyPolls == 0)
        core.release(index: 0)
        #expect(Self.drive(&core, Self.willing) == [.queueBuffer(index: 0)])
        for _ in 0..<74 {
            core.poll()
            _ = Self.drive(&core, Self.willing)
        }
        #expect(core.phase == .streaming)
        _ = core.takeEvents()
        // The 75th empty poll in a row (5 s at 15 fps) fails and tears down.
        core.poll()
        #expect(Self.drive(&core, Self.willing) == [.dequeueBuffer, .streamOff, .releaseBuffers])
        #expect(core.takeEvents() == [.failed(reason: "no picture for 5 s (75 polls): another program may hold the camera, or its driver stalled")])
        #expect(core.phase == .failed)
    }

    @Test func negotiationFollowsTheDriverAndToleratesAMissingFrameRateCall() {
        var core = V4L2CaptureCore(wanted: Self.asked, framesPerSecond: 15, bufferCount: 3)
        core.start()
        #expect(core.nextRequest() == .setFormat(Self.asked))
        #expect(core.nextRequest() == nil, "one call at a time")
        // The driver adjusts the size: accepted, it is what the buffers hold.
        let adjusted = V4L2FrameFormat(pixelFormat: .yuyv, width: 640, height: 480, bytesPerLine: 1280, sizeImage: 614_400)
        core.handle(.formatSet(adjusted))
        let made = Self.drive(&core) { request in
            switch request {
            case .setFrameRate: .failed(.notSupported)
            case .requestBuffers: .buffersGranted(2)
            case .mapBuffer(let index): .bufferMapped(index: index, length: 614_400)
            default: .done
            }
        }
        #expect(made == [.setFrameRate(15), .requestBuffers(count: 3), .mapBuffer(index: 0), .mapBuffer(index: 1),
                         .queueBuffer(index: 0), .queueBuffer(index: 1), .streamOn])
        #expect(core.takeEvents() == [.started(format: adjusted, framesPerSecond: nil)])
        #expect(core.phase == .streaming)
        #expect(core.buffers == [.queued, .queued])
    }

    @Test func aPollHandsOutTheNewestPictureAndRequeuesTheOthers() {
        var core = Self.streaming()
        core.poll()
        var filled = [(0, 100), (1, 120)]
        let made = Self.drive(&core) { request in
            guard request == .dequeueBuffer else { return .done }
            guard !filled.isEmpty else { return .failed(.wouldBlock) }
            let (index, used) = filled.removeFirst()
            return .bufferDequeued(index: index, bytesUsed: used, corrupt: false)
        }
        #expect(made == [.dequeueBuffer, .dequeueBuffer, .queueBuffer(index: 0), .dequeueBuffer])
        #expect(core.takeEvents() == [.frame(index: 1, bytesUsed: 120)])
        #expect(core.buffers == [.queued, .delivered, .queued])
        #expect(core.droppedFrames == 1)
        // Polling while the frame is out still works; releasing it queues it again.
        core.poll()
        #expect(Self.drive(&core, Self.willing) == [.dequeueBuffer])
        #expect(core.takeEvents() == [.noFrame])
        core.release(index: 1)
        #expect(Self.drive(&core, Self.willing) == [.queueBuffer(index: 1)])
        #expect(core.buffers == [.queued, .queued, .queued])
        core.release(index: 1)
        #expect(core.nextRequest() == nil, "a buffer is released once")
    }

    @Test func aCorruptOrEmptyBufferIsRequeuedAtOnce() {
        var core = Self.streaming()
        core.poll()
        var replies: [V4L2Reply] = [.bufferDequeued(index: 2, bytesUsed: 100, corrupt: true),
                                    .bufferDequeued(index: 0, bytesUsed: 0, corrupt: false), .failed(.wouldBlock)]
        let made = Self.drive(&core) { request in request == .dequeueBuffer ? replies.removeFirst() : .done }
        #expect(made == [.dequeueBuffer, .queueBuffer(index: 2), .dequeueBuffer, .queueBuffer(index: 0), .dequeueBuffer])
        #expect(core.takeEvents() == [.noFrame])
        #expect(core.corruptFrames == 2)
        #expect(core.buffers == [.queued, .queued, .queued])
    }

    @Test func anUnpluggedDeviceFailsAndIsTornDown() {
        var core = Self.streaming()
        core.poll()
        let made = Self.drive(&core) { _ in .failed(.noDevice) }
        #expect(made == [.dequeueBuffer, .streamOff, .releaseBuffers])
        #expect(core.takeEvents() == [.failed(reason: "DQBUF failed: \(V4L2Errno.noDevice)")])
        #expect(core.phase == .failed)
        #expect(core.buffers.isEmpty)
        core.poll()
        core.stop()
        #expect(core.nextRequest() == nil)
        #expect(core.takeEvents().isEmpty)
    }

    @Test func aPixelFormatTheCameraCannotConvertFailsBeforeAnythingIsAllocated() {
        var core = V4L2CaptureCore(wanted: Self.asked, framesPerSecond: 30)
        core.start()
        let made = Self.drive(&core) { _ in .formatSet(V4L2FrameFormat(pixelFormat: V4L2PixelFormat("GREY"), width: 640, height: 360)) }
        #expect(made == [.setFormat(Self.asked)])
        #expect(core.takeEvents() == [.failed(reason: "the driver set pixel format GREY, which cannot be converted")])
        #expect(core.phase == .failed)
    }

    @Test func aBusyDeviceOrNoBuffersFailTheStart() {
        var busy = V4L2CaptureCore(wanted: Self.asked, framesPerSecond: 30)
        busy.start()
        #expect(Self.drive(&busy) { _ in .failed(.busy) } == [.setFormat(Self.asked)])
        #expect(busy.phase == .failed)
        var none = V4L2CaptureCore(wanted: Self.asked, framesPerSecond: 30)
        none.start()
        let made = Self.drive(&none) { request in
            if case .requestBuffers = request { return .buffersGranted(0) }
            return Self.willing(request)
        }
        #expect(made == [.setFormat(Self.asked), .setFrameRate(30), .requestBuffers(count: 4)])
        #expect(none.takeEvents() == [.failed(reason: "the driver granted no buffers")])
    }

    @Test func aFailedMappingReleasesWhatWasGranted() {
        var core = V4L2CaptureCore(wanted: Self.asked, framesPerSecond: 30, bufferCount: 2)
        core.start()
        let made = Self.drive(&core) { request in
            if case .mapBuffer(1) = request { return .failed(.invalidArgument) }
            return Self.willing(request)
        }
        #expect(made == [.setFormat(Self.asked), .setFrameRate(30), .requestBuffers(count: 2), .mapBuffer(index: 0),
                         .mapBuffer(index: 1), .releaseBuffers])
        #expect(core.phase == .failed)
    }

    @Test func stopTurnsTheStreamOffAndReleasesTheBuffers() {
        var core = Self.streaming()
        core.poll()
        var filled = true
        _ = Self.drive(&core) { _ in
            defer { filled = false }
            return filled ? .bufferDequeued(index: 0, bytesUsed: 9, corrupt: false) : .failed(.wouldBlock)
        }
        #expect(core.takeEvents() == [.frame(index: 0, bytesUsed: 9)])
        core.stop()
        #expect(Self.drive(&core, Self.willing) == [.streamOff, .releaseBuffers])
        #expect(core.takeEvents() == [.stopped])
        #expect(core.phase == .stopped)
        core.release(index: 0)
        core.poll()
        #expect(core.nextRequest() == nil)
    }

    @Test func aBufferTheDriverDidNotHoldIsAnError() {
        var core = Self.streaming(buffers: 2)
        core.poll()
        let made = Self.drive(&core) { request in
            request == .dequeueBuffer ? .bufferDequeued(index: 5, bytesUsed: 10, corrupt: false) : .done
        }
        #expect(made == [.dequeueBuffer, .streamOff, .releaseBuffers])
        #expect(core.takeEvents() == [.failed(reason: "the driver returned buffer 5, which was not queued")])
    }

    @Test func theFormatCatalogOffersEachSizeAtItsBestRateAndPicksTheCheapestFormat() {
        let catalog = V4L2FormatCatalog(entries: [
            .init(pixelFormat: .yuyv, width: 1280, height: 720, maxFrameRate: 10),
            .init(pixelFormat: .mjpeg, width: 1280, height: 720, maxFrameRate: 30),
            .init(pixelFormat: .yuyv, width: 640, height: 360, maxFrameRate: 30),
            .init(pixelFormat: .mjpeg, width: 640, height: 360, maxFrameRate: 30),
            .init(pixelFormat: .nv12, width: 640, height: 360, maxFrameRate: 30),
            .init(pixelFormat: V4L2PixelFormat("GREY"), width: 320, height: 180, maxFrameRate: 60),
        ])
        #expect(catalog.captureFormats == [VideoCaptureFormat(width: 640, height: 360, maxFrameRate: 30),
                                           VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 30)])
        #expect(catalog.pixelFormat(for: VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 30)) == .mjpeg)
        // At 10 fps YUYV does as well as MJPEG and costs less.
        #expect(catalog.pixelFormat(for: VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 10)) == .yuyv)
        #expect(catalog.pixelFormat(for: VideoCaptureFormat(width: 640, height: 360, maxFrameRate: 30)) == .nv12)
        #expect(catalog.pixelFormat(for: VideoCaptureFormat(width: 320, height: 180, maxFrameRate: 30)) == nil)
        // A range is offered at the common sizes on its steps.
        let range = V4L2FrameSize.stepwise(minWidth: 320, maxWidth: 1280, stepWidth: 16, minHeight: 180, maxHeight: 720,
                                           stepHeight: 4)
        #expect(range.sizes.map { "\($0.width)x\($0.height)" } == ["320x180", "320x240", "640x360", "640x480", "960x540", "800x600", "1280x720"])
        #expect(V4L2PixelFormat.yuyv.code == 0x5659_5559)
        #expect(V4L2PixelFormat.mjpeg.description == "MJPG")
    }
}
