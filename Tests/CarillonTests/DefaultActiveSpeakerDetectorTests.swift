import Dispatch
import Foundation
import Testing

@testable import Carillon

/// The event-loop shell around the sans-IO detector, on the real clock: callbacks arrive on the callback queue.
@Suite struct DefaultActiveSpeakerDetectorTests {
    final class Recorder: ActiveSpeakerObserver, @unchecked Sendable {
        let observerId = "recorder"
        let scoresCallbackIntervalMs = 50
        let queue: DispatchQueue
        private let lock = NSLock()
        private var lists: [[String]] = []
        private var scores: [[String: Double]] = []
        private var wrongQueue = false

        init(queue: DispatchQueue) { self.queue = queue }

        func activeSpeakerDidDetect(attendeeInfo: [AttendeeInfo]) {
            let onQueue = DispatchQueue.getSpecific(key: Self.key) == true
            lock.withLock {
                lists.append(attendeeInfo.map(\.attendeeId))
                wrongQueue = wrongQueue || !onQueue
            }
        }

        func activeSpeakerScoreDidChange(scores: [AttendeeInfo: Double]) {
            let onQueue = DispatchQueue.getSpecific(key: Self.key) == true
            lock.withLock {
                self.scores.append(Dictionary(uniqueKeysWithValues: scores.map { ($0.key.attendeeId, $0.value) }))
                wrongQueue = wrongQueue || !onQueue
            }
        }

        static let key = DispatchSpecificKey<Bool>()
        var snapshot: (lists: [[String]], scores: [[String: Double]], wrongQueue: Bool) {
            lock.withLock { (lists, scores, wrongQueue) }
        }
    }

    func waitUntil(_ condition: () -> Bool) async {
        for _ in 0..<200 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func deliversListsAndScoresOnTheCallbackQueue() async {
        let queue = DispatchQueue(label: "test.callbacks")
        queue.setSpecific(key: Recorder.key, value: true)
        let detector = DefaultActiveSpeakerDetector(selfAttendeeId: "self", callbackQueue: queue)
        let recorder = Recorder(queue: queue)
        let alice = AttendeeInfo(attendeeId: "alice", externalUserId: "Alice")
        detector.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: recorder)
        detector.attendeesDidJoin(attendeeInfo: [alice])
        detector.volumeDidChange(volumeUpdates: [VolumeUpdate(attendeeInfo: alice, volumeLevel: .high)])
        await waitUntil { recorder.snapshot.scores.count >= 2 }
        var snapshot = recorder.snapshot
        // Real time: on a loaded machine a second may pass before this looks, and the idle decay (1 s without a
        // volume) may already have taken alice out again. What stays true is the order of what was delivered; the
        // exact scores and timing are the sans-IO detector's tests, in virtual time.
        #expect(snapshot.lists.first == ["alice"])
        let aliceScores = snapshot.scores.compactMap { $0["alice"] }
        #expect(aliceScores.contains { $0 > 0 && $0 <= 1 - 0.9 + 1e-12 }, "scores \(snapshot.scores)")
        #expect(!snapshot.wrongQueue)
        detector.attendeesDidLeave(attendeeInfo: [alice])
        await waitUntil { recorder.snapshot.lists.last == [] }
        detector.removeActiveSpeakerObserver(observer: recorder)
        snapshot = recorder.snapshot
        #expect(snapshot.lists.first == ["alice"] && snapshot.lists.last == [])
        #expect(!snapshot.wrongQueue)
        // After removal no more scores arrive.
        try? await Task.sleep(for: .milliseconds(100))
        queue.sync {}
        let settled = recorder.snapshot.scores.count
        try? await Task.sleep(for: .milliseconds(150))
        queue.sync {}
        #expect(recorder.snapshot.scores.count == settled)
    }
}
