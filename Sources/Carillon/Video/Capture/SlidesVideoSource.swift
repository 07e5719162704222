import CarillonCodecs
import Dispatch
import Foundation
import NIOCore

/// A video source of generated slides for content share (``SlidePictures``): high-detail still images, a new one
/// every ``secondsPerSlide`` seconds, the same for the same ``seed``; the slide number and the sender's colour read
/// back with `VideoPatternReading`.
///
/// Once started it emits ``width`` x ``height`` frames at ``fps`` frames a second (rotation 0, the capture loop's
/// uptime clock); slide n (from 0, counting across restarts) is shown from frame `n * fps * secondsPerSlide`.
/// Its content hint is ``VideoContentHint/text``.
///
/// Cost: one drawing per slide on the capture thread; the frames in between share its picture.
/// Threading: every member may be used from any thread; sinks are called on the capture thread, observers on a
/// serial queue of the source's own.
public final class SlidesVideoSource: VideoCaptureSource, @unchecked Sendable {
    /// The colour of the slides' colour area (the sender's).
    public let color: VideoTestPattern.Color
    /// Width of the frames in pixels.
    public let width: Int
    /// Height of the frames in pixels.
    public let height: Int
    /// Frames a second.
    public let fps: Int
    /// How long each slide shows.
    public let secondsPerSlide: Int
    /// What the slides' contents derive from.
    public let seed: UInt64
    private let capture: CaptureLoop
    private let lock = NSLock()
    private var hint = VideoContentHint.text

    /// Creates a source of `width` x `height` slides (40x20 up to 16384 each way) at `fps` frames a second (1-60),
    /// changing every `secondsPerSlide` seconds (at least 1), not started yet. Throws
    /// ``CaptureSourceError/configurationFailure`` for values out of range.
    public convenience init(color: VideoTestPattern.Color, width: Int = 1280, height: Int = 720, fps: Int = 5,
                            secondsPerSlide: Int = 3, seed: UInt64 = 1) throws(CaptureSourceError) {
        try self.init(color: color, width: width, height: height, fps: fps, secondsPerSlide: secondsPerSlide, seed: seed,
                      eventLoop: CaptureLoop.sharedEventLoop,
                      callbackQueue: DispatchQueue(label: "carillon.slides-source.callbacks"))
    }

    /// Creates a source capturing on `eventLoop` and calling observers on `callbackQueue`.
    init(color: VideoTestPattern.Color, width: Int, height: Int, fps: Int, secondsPerSlide: Int, seed: UInt64,
         eventLoop: any EventLoop, callbackQueue: DispatchQueue) throws(CaptureSourceError) {
        guard (1...60).contains(fps), secondsPerSlide >= 1 else { throw .configurationFailure }
        _ = try SlidePictures(color: color, width: width, height: height, framesPerSlide: fps * secondsPerSlide, seed: seed)
        self.color = color
        self.width = width
        self.height = height
        self.fps = fps
        self.secondsPerSlide = secondsPerSlide
        self.seed = seed
        capture = CaptureLoop(eventLoop: eventLoop, callbackQueue: callbackQueue)
    }

    /// ``VideoContentHint/text`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { lock.withLock { hint } }
        set { lock.withLock { hint = newValue } }
    }

    /// See ``VideoCaptureSource/start()``.
    public func start() {
        let (color, width, height, fps, frames, seed) = (color, width, height, fps, fps * secondsPerSlide, seed)
        capture.start { () throws(CaptureSourceError) -> CaptureSetup in
            CaptureSetup(producer: try SlidePictures(color: color, width: width, height: height, framesPerSlide: frames,
                                                     seed: seed),
                         framesPerSecond: fps)
        }
    }

    /// See ``VideoCaptureSource/stop()``; does nothing when not started.
    public func stop() { capture.stop() }

    /// See ``VideoSource/addVideoSink(sink:)``: the sink is called on the capture thread.
    public func addVideoSink(sink: any VideoSink) { capture.addSink(sink) }
    /// See ``VideoSource/removeVideoSink(sink:)``.
    public func removeVideoSink(sink: any VideoSink) { capture.removeSink(sink) }
    /// See ``VideoCaptureSource/addCaptureSourceObserver(observer:)``.
    public func addCaptureSourceObserver(observer: any CaptureSourceObserver) { capture.addObserver(observer) }
    /// See ``VideoCaptureSource/removeCaptureSourceObserver(observer:)``.
    public func removeCaptureSourceObserver(observer: any CaptureSourceObserver) { capture.removeObserver(observer) }
}
