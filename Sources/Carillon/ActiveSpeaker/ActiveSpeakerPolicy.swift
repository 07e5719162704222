/// Turns an attendee's volume updates into an active-speaker score.
///
/// A policy keeps running state across calls (for example a smoothed score per attendee), so the detector calls one
/// instance serially and only once per volume update, however many observers were registered with that instance.
/// Class-bound as in the Chime SDK, where the protocol is `@objc`.
public protocol ActiveSpeakerPolicy: AnyObject {
    /// The attendee's score after a volume update; 0 means the attendee is not an active speaker.
    func calculateScore(attendeeInfo: AttendeeInfo, volume: VolumeLevel) -> Double
    /// Whether the local attendee, when it is the top active speaker, should get video send bandwidth priority.
    func prioritizeVideoSendBandwidthForActiveSpeaker() -> Bool
}
