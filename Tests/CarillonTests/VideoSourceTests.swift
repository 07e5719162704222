import CarillonCodecs
import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import Carillon

/// The standalone sources (pattern, Y4M file) and app-made sources and processors shaped like the Chime guide's.
@Suite struct VideoSourceTests {
    let loop = EmbeddedEventLoop()
    let callbacks = TestCallbackQueue()

    @Test func theY4MSourceLoopsItsFileAtItsFrameRate() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("source-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pattern = try VideoTestPattern(width: 160, height: 90, color: .yellow)
        let writer = try Y4MWriter(path: path, header: Y4MHeader(width: 160, height: 90, frameRate: .init(10, 1)))
        for index in 0..<3 { try writer.append(pattern.image(frame: index)) }
        try writer.close()
        let source = try Y4MFileVideoSource(path: path, logger: RecordingLogger(), eventLoop: loop, callbackQueue: callbacks.queue)
        #expect(source.width == 160 && source.height == 90 && source.fps == 10)
        let observer = CaptureEvents(queueKey: callbacks.key)
        source.addCaptureSourceObserver(observer: observer)
        let sink = FrameRecorder()
        source.addVideoSink(sink: sink)
        source.start()
        loop.advanceTime(by: .milliseconds(700))
        #expect(sink.counters == [0, 1, 2, 0, 1, 2, 0, 1])
        #expect(sink.received.map(\.timestampNs) == (0..<8).map { Int64($0) * 100_000_000 })
        // Each start plays from the first frame.
        source.stop()
        source.start()
        loop.advanceTime(by: .milliseconds(100))
        #expect(sink.counters.suffix(2) == [0, 1])
        callbacks.drain()
        #expect(observer.events == ["start", "stop", "start"])
        // A file that is not Y4M, or has no frame, is refused at creation.
        try Data("YUV4MPEG2 W16 H16 F10:1\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: Y4MError.truncatedFrame(frame: 0)) { try Y4MFileVideoSource(path: path) }
        #expect(throws: Y4MError.self) { try Y4MFileVideoSource(path: path + ".missing") }
    }

    @Test func thePatternSourcePacesItsPicturesAndRefusesBadSettings() throws {
        let source = try PatternVideoSource(color: .green, width: 160, height: 90, fps: 20, eventLoop: loop,
                                            callbackQueue: callbacks.queue)
        let sink = FrameRecorder()
        source.addVideoSink(sink: sink)
        source.start()
        loop.advanceTime(by: .milliseconds(500))
        #expect(sink.counters == (0...10).map { $0 })
        let colours = sink.received.map { VideoPatternReading(($0.buffer as! VideoFrameI420Buffer).image).nearestColor() }
        #expect(colours.allSatisfy { $0 == .green })
        #expect(throws: CaptureSourceError.configurationFailure) { try PatternVideoSource(color: .red, width: 10, height: 90) }
        #expect(throws: CaptureSourceError.configurationFailure) { try PatternVideoSource(color: .red, fps: 0) }
        #expect(throws: CaptureSourceError.configurationFailure) { try PatternVideoSource(color: .red, fps: 61) }
    }

    @Test func aSinkMayStopItsSourceFromInsideAFrame() throws {
        let source = try PatternVideoSource(color: .green, width: 160, height: 90, fps: 20, eventLoop: loop,
                                            callbackQueue: callbacks.queue)
        final class StopAfterTwo: VideoSink, @unchecked Sendable {
            let source: PatternVideoSource
            var count = 0
            init(_ source: PatternVideoSource) { self.source = source }
            func onVideoFrameReceived(frame: VideoFrame) {
                count += 1
                if count == 2 { source.stop() }
            }
        }
        let sink = StopAfterTwo(source)
        source.addVideoSink(sink: sink)
        source.start()
        loop.advanceTime(by: .seconds(1))
        #expect(sink.count == 2)
        source.removeVideoSink(sink: sink)
    }

    @Test func anI420BufferMadeFromPlanesCopiesThemAndCallsItsReleaseCallbackWhenFreed() throws {
        let released = ReleaseCount()
        do {
            // 3x3: chroma 2x2; padded strides.
            let buffer = try VideoFrameI420Buffer(width: 3, height: 3, dataY: [1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0],
                                                  dataU: [10, 11, 0, 12, 13, 0], dataV: [20, 21, 22, 23],
                                                  strideY: 4, strideU: 3, strideV: 2, releaseCallback: { released.add() })
            #expect(buffer.width() == 3 && buffer.height() == 3)
            #expect(Array(buffer.dataY) == [1, 2, 3, 4, 5, 6, 7, 8, 9] && buffer.strideY == 3)
            #expect(Array(buffer.dataU) == [10, 11, 12, 13] && Array(buffer.dataV) == [20, 21, 22, 23])
            #expect(buffer.strideU == 2 && buffer.strideV == 2)
            buffer.retain()
            buffer.release()
            let frame = VideoFrame(timestampNs: 5, rotation: .rotation90, buffer: buffer)
            #expect(frame.width == 3 && frame.height == 3)
            #expect(released.count == 0)
        }
        #expect(released.count == 1)
        #expect(throws: I420ImageError.self) {
            try VideoFrameI420Buffer(width: 4, height: 4, dataY: [0], dataU: [0], dataV: [0], strideY: 4, strideU: 2, strideV: 2)
        }
        #expect(VideoRotation.rotation270.description == "rotation_270")
        #expect(VideoContentHint.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(VideoPauseState.pausedForPoorConnection.rawValue == 2)
        #expect(CaptureSourceError.invalidFrame.rawValue == 3)
        #expect(VideoPriority.allCases.map(\.rawValue) == [0, 10, 20, 30, 40])
    }

    final class ReleaseCount: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int { lock.withLock { value } }
        func add() { lock.withLock { value += 1 } }
    }

    // MARK: The guide's shapes ("Custom Video Sources, Processors, and Sinks")
    //
    // As in the guide, with `import Carillon`, a `VideoFrameI420Buffer` where iOS has a `VideoFramePixelBuffer`, and
    // `any` before protocol types because this target enables ExistentialAny (apps without it may leave it out).

    /// The guide's custom source, with an I420 buffer where iOS has a pixel buffer.
    class MyVideoSource: VideoSource {
        // Do not indicate any hint to downstream encoder
        var videoContentHint = VideoContentHint.none

        // Downstream video sinks
        private let sinks = NSMutableSet()

        func startProducingFrames(count: Int) {
            for index in 0..<count {
                let pattern = try! VideoTestPattern(width: 160, height: 90, color: .purple)
                let buffer = VideoFrameI420Buffer(image: pattern.image(frame: index))
                let timestampNs = Int64(index) * 33_333_333
                let frame = VideoFrame(timestampNs: Int64(timestampNs), rotation: .rotation0, buffer: buffer)
                for sink in sinks {
                    (sink as? any VideoSink)?.onVideoFrameReceived(frame: frame)
                }
            }
        }

        func addVideoSink(sink: any VideoSink) {
            sinks.add(sink)
        }

        func removeVideoSink(sink: any VideoSink) {
            sinks.remove(sink)
        }
    }

    /// The guide's processor: a source and a sink at once; this one turns the picture grey.
    class MyVideoProcessor: VideoSource, VideoSink {
        var videoContentHint = VideoContentHint.none

        private let sinks = NSMutableSet()

        func onVideoFrameReceived(frame: VideoFrame) {
            guard let i420Buffer = frame.buffer as? VideoFrameI420Buffer else {
                return
            }

            var picture = i420Buffer.image
            picture.withUnsafeMutablePlanes { _, u, v in
                u.update(repeating: 128)
                v.update(repeating: 128)
            }

            let processedFrame = VideoFrame(timestampNs: frame.timestampNs,
                                            rotation: frame.rotation,
                                            buffer: VideoFrameI420Buffer(image: picture))

            for sink in sinks {
                (sink as? any VideoSink)?.onVideoFrameReceived(frame: processedFrame)
            }
        }

        func addVideoSink(sink: any VideoSink) {
            sinks.add(sink)
        }

        func removeVideoSink(sink: any VideoSink) {
            sinks.remove(sink)
        }
    }

    /// The guide's custom sink.
    class MyVideoSink: VideoSink {
        var frames: [VideoFrame] = []
        func onVideoFrameReceived(frame: VideoFrame) {
            // Store, render, or upload frame
            frames.append(frame)
        }
    }

    @Test func theGuidesSourceProcessorAndSinkShapesCompileAndChain() throws {
        let source = MyVideoSource()
        let processor = MyVideoProcessor()
        let sink = MyVideoSink()
        source.addVideoSink(sink: processor)
        processor.addVideoSink(sink: sink)
        source.startProducingFrames(count: 3)
        #expect(sink.frames.count == 3)
        for (index, frame) in sink.frames.enumerated() {
            let image = try #require((frame.buffer as? VideoFrameI420Buffer)?.image)
            let reading = VideoPatternReading(image)
            #expect(reading.counter == index, "the luma is kept")
            #expect(abs(reading.meanU - 128) < 0.5 && abs(reading.meanV - 128) < 0.5, "the chroma is grey")
            #expect(frame.timestampNs == Int64(index) * 33_333_333)
        }
        // A capture source feeds a processor the same way.
        let pattern = try PatternVideoSource(color: .red, width: 160, height: 90, fps: 10, eventLoop: loop,
                                             callbackQueue: callbacks.queue)
        pattern.addVideoSink(sink: processor)
        pattern.start()
        loop.advanceTime(by: .milliseconds(200))
        pattern.stop()
        #expect(sink.frames.count == 6)
        let last = VideoPatternReading(try #require((sink.frames.last?.buffer as? VideoFrameI420Buffer)?.image))
        #expect(last.counter == 2)
        #expect(last.nearestColor() == nil, "no colour left after the processor")
    }
}
