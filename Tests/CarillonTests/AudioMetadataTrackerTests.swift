import CarillonProtocol
import Testing

@testable import Carillon

/// AUDIO_METADATA to volume and signal-strength deltas, with the implicit values of `signaling.md` §3.14.
@Suite struct AudioMetadataTrackerTests {
    func roster(muted: Set<String> = []) -> RosterTracker {
        var roster = RosterTracker(selfAttendeeId: "a")
        let entries = [("a", UInt32(1)), ("b", 2), ("c", 3)].map { id, stream -> SdkAudioStreamIdInfo in
            var entry = SdkAudioStreamIdInfo()
            entry.audioStreamID = stream
            entry.attendeeID = id
            entry.externalUserID = id.uppercased()
            if muted.contains(id) { entry.muted = true }
            return entry
        }
        _ = roster.apply(entries)
        return roster
    }

    func state(_ stream: UInt32, volume: UInt32? = nil, signal: UInt32? = nil) -> SdkAudioAttendeeState {
        var state = SdkAudioAttendeeState()
        state.audioStreamID = stream
        if let volume { state.volume = volume }
        if let signal { state.signalStrength = signal }
        return state
    }

    func levels(_ updates: [VolumeUpdate]) -> [String: VolumeLevel] {
        Dictionary(uniqueKeysWithValues: updates.map { ($0.attendeeInfo.attendeeId, $0.volumeLevel) })
    }

    @Test func mapsDecibelsToTheChimeLevels() {
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 0) == .high)
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 14) == .high)
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 24) == .medium)
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 32) == .low)
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 37) == .notSpeaking)
        #expect(AudioMetadataTracker.volumeLevel(decibelsBelowFullScale: 127) == .notSpeaking)
        #expect(AudioMetadataTracker.signalStrength(0) == .none && AudioMetadataTracker.signalStrength(1) == .low)
        #expect(AudioMetadataTracker.signalStrength(2) == .high)
    }

    @Test func reportsOnlyChangesAndSilencesThoseLeftOut() {
        var tracker = AudioMetadataTracker()
        let roster = roster()
        let first = tracker.apply([state(2, volume: 10)], roster: roster)
        #expect(levels(first.volumes) == ["a": .notSpeaking, "b": .high, "c": .notSpeaking])
        #expect(first.signals.isEmpty)
        // Same levels again: nothing to report.
        #expect(tracker.apply([state(2, volume: 12)], roster: roster).volumes.isEmpty)
        // b stops, c speaks: both change, a does not.
        let second = tracker.apply([state(3, volume: 30)], roster: roster)
        #expect(levels(second.volumes) == ["b": .notSpeaking, "c": .low])
        // Entries for unknown stream ids are ignored entirely (they do not silence the others either).
        #expect(tracker.apply([state(99, volume: 0)], roster: roster).volumes.isEmpty)
    }

    @Test func signalStrengthDefaultsToFullForThoseLeftOut() {
        var tracker = AudioMetadataTracker()
        let update = tracker.apply([state(3, signal: 1)], roster: roster())
        let strengths = Dictionary(uniqueKeysWithValues: update.signals.map { ($0.attendeeInfo.attendeeId, $0.signalStrength) })
        #expect(strengths == ["a": .high, "b": .high, "c": .low])
        #expect(update.volumes.isEmpty)
    }

    @Test func aReturnOrAReconnectReportsAnUnchangedLevelAgain() {
        var tracker = AudioMetadataTracker()
        var roster = roster()
        #expect(levels(tracker.apply([state(2, volume: 10)], roster: roster).volumes) == ["a": .notSpeaking, "b": .high, "c": .notSpeaking])
        // b leaves and comes back on a new stream between two frames: its same level is news to observers.
        var gone = SdkAudioStreamIdInfo()
        gone.audioStreamID = 2
        _ = roster.apply([gone])
        var back = SdkAudioStreamIdInfo()
        back.audioStreamID = 5
        back.attendeeID = "b"
        back.externalUserID = "B"
        _ = roster.apply([back])
        #expect(levels(tracker.apply([state(5, volume: 10)], roster: roster).volumes) == ["b": .high])
        #expect(tracker.apply([state(5, volume: 10)], roster: roster).volumes.isEmpty)
        // This client joins again (a reconnect): everyone's level is reported once more, signal strengths too.
        _ = tracker.apply([state(5, signal: 2)], roster: roster)
        roster.expectFullRoster()
        _ = roster.apply([("a", UInt32(1)), ("b", 5), ("c", 3)].map { id, stream in
            var entry = SdkAudioStreamIdInfo()
            entry.audioStreamID = stream
            entry.attendeeID = id
            entry.externalUserID = id.uppercased()
            return entry
        })
        let again = tracker.apply([state(5, volume: 10, signal: 2)], roster: roster)
        #expect(levels(again.volumes) == ["a": .notSpeaking, "b": .high, "c": .notSpeaking])
        #expect(again.signals.count == 3)
        #expect(tracker.apply([state(5, volume: 10, signal: 2)], roster: roster).volumes.isEmpty)
    }

    @Test func mutedAttendeesReadMuted() {
        var tracker = AudioMetadataTracker()
        let update = tracker.apply([state(2, volume: 0)], roster: roster(muted: ["b"]))
        #expect(levels(update.volumes)["b"] == .muted)
    }
}
