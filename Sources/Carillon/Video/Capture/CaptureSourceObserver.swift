/// Hears when a ``VideoCaptureSource`` starts, stops or fails.
///
/// Called asynchronously, in order, on the source's callback queue.
public protocol CaptureSourceObserver: AnyObject {
    /// Capture started (or restarted, after a change of device or format).
    func captureDidStart()
    /// Capture stopped after ``VideoCaptureSource/stop()``.
    func captureDidStop()
    /// Capture failed: it did not start (``CaptureSourceError/configurationFailure``), or one frame could not be
    /// produced (``CaptureSourceError/invalidFrame``, transient: capture goes on).
    func captureDidFail(error: CaptureSourceError)
}
