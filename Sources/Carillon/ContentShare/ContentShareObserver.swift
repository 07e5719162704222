/// Hears a content share start and stop (``ContentShareController``).
///
/// Callbacks arrive asynchronously, in order, on the session's callback queue.
public protocol ContentShareObserver: AnyObject {
    /// The share's session is in the meeting and sending.
    func contentShareDidStart()
    /// The share ended: ``ContentShareStatusCode/ok`` after ``ContentShareController/stopContentShare()``,
    /// ``ContentShareStatusCode/videoServiceFailed`` when the server refused it or its connection failed for good.
    func contentShareDidStop(status: ContentShareStatus)
}
