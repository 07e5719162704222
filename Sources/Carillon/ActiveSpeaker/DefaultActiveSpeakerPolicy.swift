import Foundation

/// The Chime active-speaker policy: an exponentially smoothed "is speaking" signal per attendee, where each speaking
/// update also erodes everyone else's score.
///
/// For an update of attendee *a* with level *l*: `x = 0` for `.muted` and `.notSpeaking`, else 1 (`.low`, `.medium`
/// and `.high` count alike); `s[a] = s[a]·speakerWeight + x·(1 − speakerWeight)` (starting at 0); every other
/// attendee's value drops by `takeoverRate·x`, floored at 0; the result is `s[a]`, or 0 when `s[a] < cutoffThreshold`
/// (the stored value is not cut). With the defaults, consecutive speaking updates give `1 − 0.9ᵏ` (0.1, 0.19,
/// 0.271, …) and each silent update multiplies by 0.9.
///
/// Threading: calls may come from any thread; a lock serialises them.
public final class DefaultActiveSpeakerPolicy: ActiveSpeakerPolicy, @unchecked Sendable {
    /// The default weight of an attendee's previous value: 0.9.
    public static let defaultSpeakerWeight = 0.9
    /// The default score below which an attendee counts as inactive: 0.01.
    public static let defaultCutoffThreshold = 0.01
    /// The default amount a speaking update takes from every other attendee: 0.2.
    public static let defaultTakeoverRate = 0.2

    private let speakerWeight: Double
    private let cutoffThreshold: Double
    private let takeoverRate: Double
    private let lock = NSLock()
    private var values: [String: Double] = [:]

    /// Creates a policy with the default constants.
    public convenience init() {
        self.init(
            speakerWeight: Self.defaultSpeakerWeight,
            cutoffThreshold: Self.defaultCutoffThreshold,
            takeoverRate: Self.defaultTakeoverRate
        )
    }

    /// Creates a policy with the given constants.
    public init(speakerWeight: Double = 0.9, cutoffThreshold: Double = 0.01, takeoverRate: Double = 0.2) {
        self.speakerWeight = speakerWeight
        self.cutoffThreshold = cutoffThreshold
        self.takeoverRate = takeoverRate
    }

    /// Updates the attendee's smoothed value and erodes the others' (see the type's documentation).
    public func calculateScore(attendeeInfo: AttendeeInfo, volume: VolumeLevel) -> Double {
        let speaking: Double = (volume == .muted || volume == .notSpeaking) ? 0 : 1
        return lock.withLock {
            let attendeeId = attendeeInfo.attendeeId
            let value = (values[attendeeId] ?? 0) * speakerWeight + speaking * (1 - speakerWeight)
            values[attendeeId] = value
            if speaking > 0 {
                for other in values.keys where other != attendeeId {
                    values[other] = max((values[other] ?? 0) - takeoverRate * speaking, 0)
                }
            }
            return value < cutoffThreshold ? 0 : value
        }
    }

    /// Always `true`: the top speaker's video gets send bandwidth priority.
    public func prioritizeVideoSendBandwidthForActiveSpeaker() -> Bool { true }
}
