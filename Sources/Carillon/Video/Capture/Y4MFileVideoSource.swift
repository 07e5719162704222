import CarillonCodecs
import Dispatch
import Foundation
import NIOCore

/// A video source playing a YUV4MPEG2 (`.y4m`) file over and over, in the file's size and at its frame rate: for bots,
/// the CLI and tests (`ffmpeg -i in.mp4 -pix_fmt yuv420p out.y4m` makes one; Chromium's fake capture reads the same
/// files).
///
/// Each start plays from the first frame. Frames are ``VideoFrameI420Buffer``s with rotation 0, timestamped with the
/// capture loop's uptime clock. A damaged frame after good ones ends the loop there (logged once); a file that can no
/// longer be read at start makes `captureDidFail(.configurationFailure)`. Pacing is the same as
/// ``DefaultCameraCaptureSource``'s (one capture loop type serves every source).
///
/// Cost: one read of 1.5 bytes a pixel per frame. Threading: every member may be used from any thread; sinks are
/// called on the capture thread (an event loop thread shared by the process's capture sources), observers
/// asynchronously, in order, on a serial queue of the source's own.
public final class Y4MFileVideoSource: VideoCaptureSource, @unchecked Sendable {
    /// Where the file is.
    public let path: String
    /// Width of the frames in pixels (the file's).
    public let width: Int
    /// Height of the frames in pixels (the file's).
    public let height: Int
    /// Frames a second: the file's rate rounded, 1-60.
    public let fps: Int
    private let logger: any Logger
    private let capture: CaptureLoop
    private let lock = NSLock()
    private var hint = VideoContentHint.motion

    /// Opens the file at `path` and checks its header and first frame, not started yet. Throws the file's
    /// ``CarillonCodecs/Y4MError`` (``CarillonCodecs/Y4MError/truncatedFrame(frame:)`` with frame 0 for a file
    /// without frames). `logger` hears about damaged frames.
    public convenience init(path: String, logger: any Logger = ConsoleLogger(name: "Y4MFileVideoSource")) throws(Y4MError) {
        try self.init(path: path, logger: logger, eventLoop: CaptureLoop.sharedEventLoop,
                      callbackQueue: DispatchQueue(label: "carillon.y4m-source.callbacks"))
    }

    /// Creates a source capturing on `eventLoop` and calling observers on `callbackQueue`.
    init(path: String, logger: any Logger, eventLoop: any EventLoop, callbackQueue: DispatchQueue) throws(Y4MError) {
        let reader = try Y4MReader(contentsOf: path)
        guard try reader.nextFrame() != nil else { throw .truncatedFrame(frame: 0) }
        self.path = path
        width = reader.header.width
        height = reader.header.height
        fps = Y4MPictures.framesPerSecond(reader.header)
        self.logger = logger
        capture = CaptureLoop(eventLoop: eventLoop, callbackQueue: callbackQueue)
    }

    /// ``VideoContentHint/motion`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { lock.withLock { hint } }
        set { lock.withLock { hint = newValue } }
    }

    /// See ``VideoCaptureSource/start()``: plays from the first frame.
    public func start() {
        let (path, width, height, fps, carried) = (path, width, height, fps, CrossThreadLogger(logger))
        capture.start { () throws(CaptureSourceError) -> CaptureSetup in
            CaptureSetup(producer: try Y4MPictures(path: path, width: width, height: height, logger: carried.logger),
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
