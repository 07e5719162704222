/// Registers observers of the meeting's active speakers.
///
/// Threading: methods may be called from any thread; observers are called on the session's callback queue.
public protocol ActiveSpeakerDetectorFacade: AnyObject {
    /// Starts reporting active speakers to `observer`, scored by `policy`; replaces an observer with the same
    /// `observerId`.
    ///
    /// Observers registered with the same policy instance share its scores; a new policy instance starts from
    /// zero. An observer added while its policy already has active speakers receives the current list at once.
    func addActiveSpeakerObserver(policy: any ActiveSpeakerPolicy, observer: any ActiveSpeakerObserver)
    /// Stops all callbacks to the observer with `observer.observerId`.
    func removeActiveSpeakerObserver(observer: any ActiveSpeakerObserver)
    /// The Chime SDK's hook for the local attendee gaining or losing video send bandwidth priority; a no-op there
    /// and here.
    func hasBandwidthPriorityCallback(hasBandwidthPriority: Bool)
}

extension ActiveSpeakerDetectorFacade {
    /// Does nothing, as in the Chime SDK.
    public func hasBandwidthPriorityCallback(hasBandwidthPriority: Bool) {}
}
