/// A ``VideoSource`` that captures on its own once started: a camera, a file, a generated pattern.
///
/// Threading: every method may be called from any thread. Observers are called asynchronously on a callback queue
/// (see each implementation), in order.
public protocol VideoCaptureSource: VideoSource {
    /// Starts capturing (restarts, when it is already capturing); observers hear ``CaptureSourceObserver/captureDidStart()``
    /// or ``CaptureSourceObserver/captureDidFail(error:)``.
    func start()
    /// Stops capturing; observers hear ``CaptureSourceObserver/captureDidStop()``.
    func stop()
    /// Adds an observer of starts, stops and failures; kept strongly until removed.
    func addCaptureSourceObserver(observer: any CaptureSourceObserver)
    /// Removes an observer; it is not called again.
    func removeCaptureSourceObserver(observer: any CaptureSourceObserver)
}
