/// Turns levels in dBov into a 0...1 volume for UI meters, with a fast rise and a slow fall so the bar does not
/// flicker between syllables.
///
/// A value type with state; one owner updates it.
public struct VolumeMeter: Sendable {
    /// The level shown as 0: quieter input shows an empty meter.
    public let floorDBov: Double
    /// How much of the gap to a lower level the meter closes per update (0...1; 1 follows at once).
    public let releaseFactor: Double
    /// The last volume reported, 0...1.
    public private(set) var volume: Double = 0

    /// Creates a meter; the defaults show -60...0 dBov and fall about a third of the way per 20 ms frame. A floor
    /// above -1 dBov is taken as -1 and the release factor is clamped to 0...1, so no setting can break the meter.
    public init(floorDBov: Double = -60, releaseFactor: Double = 0.3) {
        self.floorDBov = floorDBov.isNaN ? -60 : min(-1, floorDBov)
        self.releaseFactor = releaseFactor.isNaN ? 0.3 : min(1, max(0, releaseFactor))
    }

    /// The 0...1 position of `dBov` on a meter with floor `floorDBov`, linear in decibels (how loudness is perceived).
    public static func linearVolume(dBov: Double, floorDBov: Double = -60) -> Double {
        guard !dBov.isNaN else { return 0 }
        return min(1, max(0, (dBov - floorDBov) / -floorDBov))
    }

    /// Feeds one frame's level and returns the volume to show: rises at once, falls by ``releaseFactor``.
    public mutating func update(dBov: Double) -> Double {
        let target = Self.linearVolume(dBov: dBov, floorDBov: floorDBov)
        volume = target >= volume ? target : volume + (target - volume) * releaseFactor
        return volume
    }

    /// Feeds one frame and returns the volume to show.
    public mutating func update(_ frame: AudioFrame) -> Double {
        update(dBov: AudioLevel.rmsDBov(frame))
    }
}
