import CarillonCodecs
import Dispatch
import Foundation
import NIOCore

/// A video source of a computer screen, for content share: an X11 display today (``ScreenCaptureBackend/x11(display:)``,
/// through XCB and MIT-SHM, which Xvfb supports too), other backends later behind the same type.
///
/// Once started it emits the screen at ``fps`` frames a second (5 by default: a screen changes rarely, and content is
/// sent at a low rate), scaled down to fit 1920x1080 when larger, as ``VideoFrameI420Buffer``s with rotation 0 on
/// the capture loop's uptime clock. A display that cannot be opened makes `captureDidFail(.configurationFailure)`
/// (the reason is logged); a failed read skips that frame. Its content hint is ``VideoContentHint/detail``.
///
/// Cost: a grab and a BGRA to I420 conversion per frame on the capture thread (see ``X11ScreenGrabber``).
/// Threading: every member may be used from any thread; sinks are called on the capture thread, observers on a
/// serial queue of the source's own.
public final class ScreenVideoSource: VideoCaptureSource, @unchecked Sendable {
    /// What the source reads.
    public let backend: ScreenCaptureBackend
    /// Frames a second.
    public let fps: Int
    private let logger: any Logger
    private let capture: CaptureLoop
    private let lock = NSLock()
    private var hint = VideoContentHint.detail

    /// Creates a source of `backend`'s screen at `fps` frames a second (1-30), not started yet (the display is opened
    /// at start). Throws ``CaptureSourceError/configurationFailure`` for a rate out of range.
    public convenience init(backend: ScreenCaptureBackend = .x11(display: nil), fps: Int = 5,
                            logger: any Logger = ConsoleLogger(name: "ScreenVideoSource")) throws(CaptureSourceError) {
        try self.init(backend: backend, fps: fps, logger: logger, eventLoop: CaptureLoop.sharedEventLoop,
                      callbackQueue: DispatchQueue(label: "carillon.screen-source.callbacks"))
    }

    /// Creates a source capturing on `eventLoop` and calling observers on `callbackQueue`.
    init(backend: ScreenCaptureBackend, fps: Int, logger: any Logger, eventLoop: any EventLoop,
         callbackQueue: DispatchQueue) throws(CaptureSourceError) {
        guard (1...30).contains(fps) else { throw .configurationFailure }
        self.backend = backend
        self.fps = fps
        self.logger = logger
        capture = CaptureLoop(eventLoop: eventLoop, callbackQueue: callbackQueue)
    }

    /// Opens `backend`'s display and its shared memory now, on the calling thread, and closes them again: nil when
    /// the screen can be captured, else why not. A Carillon addition, so that an app or a bot can refuse a share up
    /// front instead of starting one whose capture fails at once. Cost: one connection to the display server.
    public static func unavailableReason(_ backend: ScreenCaptureBackend) -> String? {
        let reasons = ReasonCollector()
        do {
            switch backend {
            case .x11(let display): _ = try X11ScreenGrabber(display: display, logger: reasons)
            }
            return nil
        } catch {
            return reasons.first ?? "the screen cannot be captured (\(error))"
        }
    }

    /// ``VideoContentHint/detail`` unless changed.
    public var videoContentHint: VideoContentHint {
        get { lock.withLock { hint } }
        set { lock.withLock { hint = newValue } }
    }

    /// See ``VideoCaptureSource/start()``: opens the display on the capture thread.
    public func start() {
        let (backend, fps, carried) = (backend, fps, CrossThreadLogger(logger))
        capture.start { () throws(CaptureSourceError) -> CaptureSetup in
            let grabber: any ScreenGrabber = switch backend {
            case .x11(let display): try X11ScreenGrabber(display: display, logger: carried.logger)
            }
            return CaptureSetup(producer: ScreenPictures(grabber: grabber), framesPerSecond: fps)
        }
    }

    /// See ``VideoCaptureSource/stop()``; does nothing when not started. The display connection closes.
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

/// Keeps the first error a grabber logs: the reason ``ScreenVideoSource/unavailableReason(_:)`` gives.
private final class ReasonCollector: Logger, @unchecked Sendable {
    private let lock = NSLock()
    private var reasons: [String] = []
    var first: String? { lock.withLock { reasons.first } }

    func `default`(msg: String) {}
    func debug(debugFunction: () -> String) {}
    func info(msg: String) {}
    func fault(msg: String) { error(msg: msg) }
    func error(msg: String) {
        let reason = msg.hasPrefix("screen capture: ") ? String(msg.dropFirst("screen capture: ".count)) : msg
        lock.withLock { reasons.append(reason) }
    }
    func setLogLevel(level: LogLevel) {}
    func getLogLevel() -> LogLevel { .ERROR }
}
