import NIOCore

/// How loud one participant has been lately, from the RFC 6464 levels of its packets, and whether it counts as
/// speaking (sans-IO).
///
/// Levels are -dBov: 0 loudest, 127 silence. Packets report levels as they arrive; once per tick ``update(now:threshold:)``
/// folds the loudest of them into a smoothed level that rises fast and falls slower, so one loud click neither
/// dominates nor a syllable's tail vanishes at once. Threading: a value; its mixer's owner keeps it.
struct SpeakerActivity {
    /// Weight of a louder input per 20 ms tick: onsets show within two or three frames.
    private static let attack = 0.5
    /// Weight of a quieter input: about 100 ms to fall.
    private static let release = 0.2
    /// How long the last level stands for a stream that sent nothing since (a lost or late packet), before it counts
    /// as silent.
    private static let staleness = TimeAmount.milliseconds(60)

    /// The smoothed level.
    private(set) var level: Double = 127
    /// The smoothed level when it last passed the voice threshold: the rank a speaker keeps through a pause.
    private(set) var speechLevel: Double = 127
    /// When the smoothed level last passed the voice threshold.
    private(set) var lastVoiced: NIODeadline?
    private var pending: UInt8?
    private var lastInput: UInt8 = 127
    private var lastArrival: NIODeadline?

    /// Notes the level a packet carries (or that was measured from it).
    mutating func record(level: UInt8, arrival: NIODeadline) {
        pending = min(pending ?? 127, min(level, 127))
        lastArrival = max(lastArrival ?? arrival, arrival)
    }

    /// Advances one tick.
    mutating func update(now: NIODeadline, threshold: UInt8) {
        let input: UInt8
        if let pending {
            input = pending
            self.pending = nil
        } else if let lastArrival, now - lastArrival <= Self.staleness {
            input = lastInput
        } else {
            input = 127
        }
        lastInput = input
        let target = Double(input)
        level += (target - level) * (target < level ? Self.attack : Self.release)
        if level <= Double(threshold) {
            lastVoiced = now
            speechLevel = level
        }
    }

    /// Whether the participant is speaking or paused within `hold` of speaking.
    func isActive(now: NIODeadline, hold: TimeAmount) -> Bool {
        guard let lastVoiced else { return false }
        return lastVoiced == now || now - lastVoiced < hold
    }

    /// The smoothed level rounded to a whole RFC 6464 value.
    var roundedLevel: UInt8 { UInt8(min(127, max(0, level.rounded()))) }
}
