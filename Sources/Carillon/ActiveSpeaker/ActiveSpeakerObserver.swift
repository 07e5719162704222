/// Receives active-speaker lists and, optionally, periodic scores.
///
/// Callbacks arrive asynchronously on the session's callback queue. Observers are keyed by ``observerId``: adding
/// another observer with the same id replaces the first. In the Chime SDK ``scoresCallbackIntervalMs`` and
/// ``activeSpeakerScoreDidChange(scores:)`` are `@objc optional`; here both have default implementations, and
/// scores are delivered only when ``scoresCallbackIntervalMs`` is greater than 0 (the default is 0).
public protocol ActiveSpeakerObserver: AnyObject {
    /// The observer's identity for add, replace and remove.
    var observerId: String { get }
    /// How often to receive ``activeSpeakerScoreDidChange(scores:)``, in milliseconds; 0 (the default) for never.
    ///
    /// Read once, when the observer is added.
    var scoresCallbackIntervalMs: Int { get }
    /// The scores of every attendee the detector knows (zeros included), every ``scoresCallbackIntervalMs``.
    func activeSpeakerScoreDidChange(scores: [AttendeeInfo: Double])
    /// The active speakers, highest score first; called when an attendee enters or leaves the list (not when the
    /// list is only re-ordered), and once when the observer is added while the list is not empty.
    func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo])
}

extension ActiveSpeakerObserver {
    /// 0: no score callbacks (the Chime member is optional).
    public var scoresCallbackIntervalMs: Int { 0 }
    /// Does nothing (the Chime member is optional).
    public func activeSpeakerScoreDidChange(scores: [AttendeeInfo: Double]) {}
}
