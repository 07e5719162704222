import NIOCore
import Testing

@testable import Carillon

/// The sans-IO detector on a virtual clock (`policies.md` §1.4).
@Suite struct ActiveSpeakerDetectorTests {
    final class Observer: ActiveSpeakerObserver {
        let observerId: String
        let scoresCallbackIntervalMs: Int
        init(_ id: String, scoresEveryMs: Int = 0) {
            observerId = id
            scoresCallbackIntervalMs = scoresEveryMs
        }
        func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {}
    }

    /// Only the required members: no score callbacks.
    final class MinimalObserver: ActiveSpeakerObserver {
        let observerId = "minimal"
        func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {}
    }

    /// Records every call, then defers to the default policy.
    final class RecordingPolicy: ActiveSpeakerPolicy {
        let inner = DefaultActiveSpeakerPolicy()
        var calls: [(String, VolumeLevel)] = []
        func calculateScore(attendeeInfo: AttendeeInfo, volume: VolumeLevel) -> Double {
            calls.append((attendeeInfo.attendeeId, volume))
            return inner.calculateScore(attendeeInfo: attendeeInfo, volume: volume)
        }
        func prioritizeVideoSendBandwidthForActiveSpeaker() -> Bool { true }
    }

    /// A flattened event: `detect` (observer, attendee ids), `scores` (observer, id → score) or `priority`.
    enum Seen: Equatable {
        case detect(String, [String])
        case scores(String, [String: Double])
        case priority(Bool)
    }

    let alice = AttendeeInfo(attendeeId: "alice", externalUserId: "Alice")
    let bob = AttendeeInfo(attendeeId: "bob", externalUserId: "Bob")
    let carol = AttendeeInfo(attendeeId: "carol", externalUserId: "Carol")
    let me = AttendeeInfo(attendeeId: "self", externalUserId: "Me")

    func at(_ ms: Int64) -> NIODeadline { .uptimeNanoseconds(1_000_000_000) + .milliseconds(ms) }

    func seen(_ events: [ActiveSpeakerDetector.Event]) -> [Seen] {
        events.map {
            switch $0 {
            case .activeSpeakers(let observer, let attendees): .detect(observer.observerId, attendees.map(\.attendeeId))
            case .scores(let observer, let scores):
                // Rounded so that hand-computed values compare exactly.
                .scores(observer.observerId, Dictionary(uniqueKeysWithValues: scores.map { ($0.key.attendeeId, ($0.value * 1e9).rounded() / 1e9) }))
            case .bandwidthPriorityChanged(let priority): .priority(priority)
            }
        }
    }

    func volume(_ attendee: AttendeeInfo, _ level: VolumeLevel) -> [VolumeUpdate] {
        [VolumeUpdate(attendeeInfo: attendee, volumeLevel: level)]
    }

    /// Runs every deadline up to and including `end`, collecting what it returns.
    func run(_ detector: inout ActiveSpeakerDetector, until end: NIODeadline) -> [Seen] {
        var result: [Seen] = []
        while let deadline = detector.nextDeadline, deadline <= end { result += seen(detector.advance(to: deadline)) }
        return result
    }

    @Test func aSpeakerBecomesActiveAndASecondOneOvertakes() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let observer = Observer("one")
        #expect(seen(detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: observer, at: at(0))) == [])
        #expect(seen(detector.attendeesDidJoin([alice, bob], at: at(0))) == [])
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(100))) == [.detect("one", ["alice"])])
        // 0.19: a score change but not a membership change.
        #expect(seen(detector.volumeDidChange(volume(alice, .medium), at: at(150))) == [])
        // Bob enters at 0.1 behind Alice's stored 0.19 (her internal value drops to 0 but is not re-evaluated yet).
        #expect(seen(detector.volumeDidChange(volume(bob, .low), at: at(180))) == [.detect("one", ["alice", "bob"])])
        #expect(seen(detector.volumeDidChange(volume(bob, .high), at: at(190))) == [])
        // Alice's next evaluation sees her eroded value: she leaves the list.
        #expect(seen(detector.volumeDidChange(volume(alice, .notSpeaking), at: at(195))) == [.detect("one", ["bob"])])
        #expect(detector.activeSpeakers(for: observer).map(\.attendeeId) == ["bob"])
    }

    @Test func reorderingAloneDoesNotNotify() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(takeoverRate: 0), observer: Observer("one"), at: at(0))
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(10))) == [.detect("one", ["alice"])])
        #expect(seen(detector.volumeDidChange(volume(bob, .high), at: at(20))) == [.detect("one", ["alice", "bob"])])
        // Bob climbs to 0.19 and 0.271, above Alice's 0.1: no callback.
        #expect(seen(detector.volumeDidChange(volume(bob, .high) + volume(bob, .high), at: at(30))) == [])
        // The next membership change rebuilds the list in score order.
        #expect(seen(detector.volumeDidChange(volume(carol, .high), at: at(40))) == [.detect("one", ["bob", "alice", "carol"])])
    }

    @Test func equalScoresAreOrderedByAttendeeId() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(takeoverRate: 0), observer: Observer("one"), at: at(0))
        #expect(seen(detector.volumeDidChange(volume(carol, .high), at: at(10))) == [.detect("one", ["carol"])])
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(20))) == [.detect("one", ["alice", "carol"])])
    }

    @Test func silenceDecaysOnTheTimerAboutOnceASecond() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = RecordingPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("one", scoresEveryMs: 1200), at: at(0))
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(0))) == [.detect("one", ["alice"])])
        // She stops at once: 0.09.
        #expect(seen(detector.volumeDidChange(volume(alice, .notSpeaking), at: at(0))) == [])
        #expect(detector.nextDeadline == at(200))
        // Ticks every 200 ms; Alice is idle for more than 1000 ms first at 1200, then (her score changed) at 2400.
        #expect(run(&detector, until: at(2400)) == [.scores("one", ["alice": 0.081]), .scores("one", ["alice": 0.0729])])
        #expect(policy.calls.count == 4)
        #expect(policy.calls.dropFirst().allSatisfy { $0.0 == "alice" && $0.1 == .notSpeaking })
        // 0.09 · 0.9²⁰ ≈ 0.0109 at 24 000 is still active; 0.09 · 0.9²¹ ≈ 0.0098 at 25 200 is not.
        let events = run(&detector, until: at(25_200))
        #expect(events.filter { if case .detect = $0 { true } else { false } } == [.detect("one", [])])
        #expect(Array(events.suffix(2)) == [.detect("one", []), .scores("one", ["alice": 0])])
        #expect(policy.calls.count == 23)
    }

    @Test func anUnchangedSpeakingLevelKeepsCountingAsSpeech() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = RecordingPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("one", scoresEveryMs: 1200), at: at(0))
        // One update (the realtime layer reports only changes), then a steady level: re-scored with it, not as silence.
        #expect(seen(detector.volumeDidChange(volume(alice, .medium), at: at(0))) == [.detect("one", ["alice"])])
        #expect(run(&detector, until: at(3600)) == [
            .scores("one", ["alice": 0.19]), .scores("one", ["alice": 0.271]), .scores("one", ["alice": 0.3439]),
        ])
        #expect(policy.calls.map(\.1) == [.medium, .medium, .medium, .medium])
    }

    @Test func threeEqualSteadyTalkersKeepTheirPlacesForAMinute() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let observer = Observer("one", scoresEveryMs: 10_000)
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: observer, at: at(0))
        _ = detector.attendeesDidJoin([alice, bob, carol], at: at(0))
        // Three tones of one level start together: one AUDIO_METADATA frame, then nothing changes.
        #expect(seen(detector.volumeDidChange(volume(alice, .high) + volume(bob, .high) + volume(carol, .high), at: at(100))) == [
            .detect("one", ["alice"]), .detect("one", ["alice", "bob"]), .detect("one", ["alice", "bob", "carol"]),
        ])
        // Each re-scoring lifts its attendee from 0 back to 0.1 and erodes the other two to 0: nobody leaves or enters.
        let steady = ["alice": 0.1, "bob": 0.1, "carol": 0.1]
        #expect(run(&detector, until: at(60_000)) == Array(repeating: .scores("one", steady), count: 6))
        #expect(detector.activeSpeakers(for: observer).map(\.attendeeId) == ["alice", "bob", "carol"])
    }

    @Test func aMutedAttendeeIsReScoredAsMuted() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = RecordingPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("one"), at: at(0))
        _ = detector.attendeesDidJoin([alice], at: at(0))
        _ = detector.volumeDidChange(volume(alice, .high), at: at(0))
        _ = detector.volumeDidChange(volume(alice, .muted), at: at(100))  // 0.09
        _ = run(&detector, until: at(1000))
        #expect(policy.calls.count == 2)
        _ = run(&detector, until: at(1200))  // 1200 − 100 > 1000
        #expect(policy.calls.count == 3)
        #expect(policy.calls.last?.1 == .muted)
    }

    @Test func aVolumeUpdateKeepsAnAttendeeFromDecaying() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = RecordingPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("one"), at: at(0))
        for ms in stride(from: Int64(0), through: 3000, by: 900) {
            _ = run(&detector, until: at(ms))
            _ = detector.volumeDidChange(volume(alice, .high), at: at(ms))
        }
        _ = run(&detector, until: at(3600))
        // Only the four volume updates (0, 900, 1800, 2700) were scored; the timer found no attendee idle.
        #expect(policy.calls.count == 4)
        #expect(policy.calls.allSatisfy { $0.1 == .high })
    }

    @Test func aLeavingSpeakerIsRemovedAndForgotten() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(takeoverRate: 0), observer: Observer("one", scoresEveryMs: 1000), at: at(0))
        _ = detector.attendeesDidJoin([alice, bob, carol], at: at(0))
        _ = detector.volumeDidChange(volume(alice, .high) + volume(bob, .high), at: at(100))
        #expect(detector.activeSpeakers(for: Observer("one")).map(\.attendeeId) == ["alice", "bob"])
        #expect(seen(detector.attendeesDidLeave([alice], at: at(200))) == [.detect("one", ["bob"])])
        // Carol was never active: her leaving changes no list.
        #expect(seen(detector.attendeesDidLeave([carol], at: at(300))) == [])
        #expect(seen(detector.attendeesDidLeave([alice], at: at(400))) == [])
        #expect(run(&detector, until: at(1000)) == [.scores("one", ["bob": 0.1])])
        #expect(seen(detector.removeAllAttendees(at: at(1100))) == [.detect("one", [])])
        #expect(run(&detector, until: at(2000)) == [.scores("one", [:])])
    }

    @Test func twoObserversWithDifferentPoliciesAndScoreIntervals() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let fast = Observer("fast", scoresEveryMs: 250)
        let strict = Observer("strict", scoresEveryMs: 1000)
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: fast, at: at(0))
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(cutoffThreshold: 0.15), observer: strict, at: at(0))
        _ = detector.attendeesDidJoin([alice, bob], at: at(0))
        // 0.1 is active for the default policy, below the strict one's cutoff.
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(100))) == [.detect("fast", ["alice"])])
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(200))) == [.detect("strict", ["alice"])])
        let events = run(&detector, until: at(1000))
        let scores = ["alice": 0.19, "bob": 0.0]
        #expect(events == [
            .scores("fast", scores), .scores("fast", scores), .scores("fast", scores),
            .scores("fast", scores), .scores("strict", scores),
        ])
        #expect(detector.nextDeadline == at(1200))
    }

    @Test func observersSharingAPolicyShareItsScoresAndStepItOnce() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = RecordingPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("a", scoresEveryMs: 500), at: at(0))
        _ = detector.addObserver(policy: policy, observer: Observer("b"), at: at(0))
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(100))) == [.detect("a", ["alice"]), .detect("b", ["alice"])])
        #expect(policy.calls.count == 1)
        #expect(run(&detector, until: at(500)) == [.scores("a", ["alice": 0.1])])
    }

    @Test func anObserverAddedMidMeetingGetsTheCurrentList() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = DefaultActiveSpeakerPolicy()
        _ = detector.addObserver(policy: policy, observer: Observer("early"), at: at(0))
        _ = detector.volumeDidChange(volume(bob, .high), at: at(100))
        #expect(seen(detector.addObserver(policy: policy, observer: Observer("late"), at: at(500))) == [.detect("late", ["bob"])])
        // A fresh policy has no history: nothing yet, until someone speaks.
        #expect(seen(detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: Observer("fresh"), at: at(600))) == [])
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(700))) == [
            .detect("early", ["alice", "bob"]), .detect("late", ["alice", "bob"]), .detect("fresh", ["alice"]),
        ])
    }

    @Test func removalStopsAllCallbacks() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let kept = Observer("kept")
        let removed = Observer("removed", scoresEveryMs: 200)
        let policy = DefaultActiveSpeakerPolicy()
        _ = detector.addObserver(policy: policy, observer: kept, at: at(0))
        _ = detector.addObserver(policy: policy, observer: removed, at: at(0))
        _ = detector.removeObserver(removed)
        #expect(seen(detector.volumeDidChange(volume(alice, .high), at: at(100))) == [.detect("kept", ["alice"])])
        #expect(run(&detector, until: at(2000)).isEmpty)
        _ = detector.removeObserver(kept)
        #expect(detector.nextDeadline == nil)
        #expect(detector.volumeDidChange(volume(bob, .high), at: at(2100)).isEmpty)
    }

    @Test func anObserverWithTheSameIdReplacesTheFirst() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let policy = DefaultActiveSpeakerPolicy()
        let first = Observer("same", scoresEveryMs: 100)
        let second = Observer("same")
        _ = detector.addObserver(policy: policy, observer: first, at: at(0))
        _ = detector.volumeDidChange(volume(alice, .high), at: at(50))
        // Same policy: its state survives the replacement, and the new observer gets the list.
        let events = detector.addObserver(policy: policy, observer: second, at: at(60))
        #expect(seen(events) == [.detect("same", ["alice"])])
        if case .activeSpeakers(let observer, _) = events.first { #expect(observer === second) }
        #expect(run(&detector, until: at(1000)).isEmpty)
    }

    @Test func observersWithoutAnIntervalGetNoScores() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        let observer = MinimalObserver()
        #expect(observer.scoresCallbackIntervalMs == 0)
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: observer, at: at(0))
        _ = detector.volumeDidChange(volume(alice, .high), at: at(0))
        #expect(run(&detector, until: at(5000)) == [])
    }

    @Test func theLocalTopSpeakerGetsBandwidthPriority() {
        var detector = ActiveSpeakerDetector(selfAttendeeId: "self")
        _ = detector.addObserver(policy: DefaultActiveSpeakerPolicy(), observer: Observer("one"), at: at(0))
        #expect(seen(detector.volumeDidChange(volume(me, .high), at: at(0))) == [.detect("one", ["self"]), .priority(true)])
        #expect(detector.hasBandwidthPriority)
        _ = detector.volumeDidChange(volume(me, .high), at: at(10))  // 0.19
        #expect(seen(detector.volumeDidChange(volume(bob, .high), at: at(20))) == [.detect("one", ["self", "bob"])])
        // Bob's speech eroded self to 0: self leaves the list and loses priority.
        #expect(seen(detector.volumeDidChange(volume(me, .notSpeaking), at: at(30))) == [.detect("one", ["bob"]), .priority(false)])
    }
}
