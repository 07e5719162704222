import CarillonCodecs
import Dispatch
import Foundation
import NIOCore

/// A video source drawing the synthetic camera's pictures (`VideoTestPattern`): a frame counter that survives coding,
/// the sender's colour, moving texture. For bots, the CLI and tests; `VideoPatternReading` reads the pictures back.
///
/// Once started it emits ``width`` x ``height`` frames at ``fps`` frames a second, each a ``VideoFrameI420Buffer``
/// with rotation 0, timestamped with the capture loop's uptime clock; frame n (from 0, counting across restarts)
/// shows counter n modulo 65536. Pacing is the same as ``DefaultCameraCaptureSource``'s (one capture loop type serves
/// every source).
///
/// Cost: about 1.4 ms of CPU a frame at 640x360 (5.4 ms at 1280x720, release build), on the capture thread.
/// Threading: every member may be used from any thread; sinks are called on the capture thread (an event loop thread
/// shared by the process's capture sources), observers asynchronously, in order, on a serial queue of the source's
/// own.
public final class PatternVideoSource: VideoCaptureSource, @unchecked Sendable {
    /// The colour of the pattern's colour area.
    public let color: VideoTestPattern.Color
    /// Width of the frames in pixels.
    public let width: Int
    /// Height of the frames in pixels.
    public let height: Int
    /// Frames a second.
    public let fps: Int
    private let capture: CaptureLoop
    private let lock = NSLock()
    private var hint = VideoContentHint.motion

    /// Creates a source of `width` x `height` pictures (20x10 up to 16384 each way) at `fps` frames a second (1-60),
    /// not started yet. Throws ``CaptureSourceError/configurationFailure`` for values out of range.
    public convenience init(color: VideoTestPattern.Color, width: Int = 640, height: Int = 360, fps: Int = 15)
        throws(CaptureSourceError) {
        try self.init(color: color, width: width, height: height, fps: fps, eventLoop: CaptureLoop.sharedEventLoop,
                      callbackQueue: DispatchQueue(label: "carillon.pattern-source.callbacks"))
    }

    /// Creates a source capturing on `eventLoop` and calling observers on `callbackQueue`.
    init(color: VideoTestPattern.Color, width: Int, height: Int, fps: Int, eventLoop: any EventLoop,
         callbackQueue: DispatchQueue) throws(CaptureSourceError) {
        guard (1...60).contains(fps) else { throw .configurationFailure }
        _ = try PatternPictures(color: color, width: width, height: height)
        self.color = color
        self.width = width
        self.height = height
        self.fps = fps
        capture = CaptureLoop(eventLoop: eventLoop, callbackQueue: callbackQueue)
    }

    /// ``VideoContentHint/motion`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { lock.withLock { hint } }
        set { lock.withLock { hint = newValue } }
    }

    /// See ``VideoCaptureSource/start()``.
    public func start() {
        let (color, width, height, fps) = (color, width, height, fps)
        capture.start { () throws(CaptureSourceError) -> CaptureSetup in
            CaptureSetup(producer: try PatternPictures(color: color, width: width, height: height), framesPerSecond: fps)
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
