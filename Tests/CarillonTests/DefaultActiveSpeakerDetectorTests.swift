import Dispatch
import Foundation
import NIOEmbedded
import Testing

@testable import Carillon

/// The event-loop shell around the sans-IO detector, on a virtual-time loop: callbacks arrive on the callback queue.
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

    @Test func deliversListsAndScoresOnTheCallbackQueue() {
        // The session's loop in virtual time: the shell's timer follows the detector's deadlines exactly.
        let loop = EmbeddedEventLoop()
        let queue = DispatchQueue(label: "test.callbacks")
        queue.setSpecific(key: Recorder.key, value: true)
        let detector = DefaultActiveSpeakerDetector(selfAttendeeId: "self", callbackQueue: queue, eventLoop: loop)
        let recorder = Recorder(queue: queue)
        let alice = AttendeeInfo(attendeeId: "alice", externalUserId: "Alice")
        detector.addActiveSpeakerObserver(policy: DefaultActiveSpeakerPolicy(), observer: recorder)
        detector.attendeesDidJoin(attendeeInfo: [alice])
        detector.volumeDidChange(volumeUpdates: [VolumeUpdate(attendeeInfo: alice, volumeLevel: .high)])
        loop.run()
        loop.advanceTime(by: .milliseconds(100))
        queue.sync {}
        var snapshot = recorder.snapshot
        #expect(snapshot.lists == [["alice"]])
        #expect(snapshot.scores.count >= 2)
        let score = snapshot.scores.last?["alice"] ?? 0
        #expect(score > 0 && score <= 1 - 0.9 + 1e-12)
        #expect(!snapshot.wrongQueue)
        detector.attendeesDidLeave(attendeeInfo: [alice])
        loop.run()
        detector.removeActiveSpeakerObserver(observer: recorder)
        loop.run()
        queue.sync {}
        snapshot = recorder.snapshot
        #expect(snapshot.lists == [["alice"], []])
        #expect(!snapshot.wrongQueue)
        // After removal no more scores arrive, however long the detector runs.
        let settled = snapshot.scores.count
        loop.advanceTime(by: .seconds(2))
        queue.sync {}
        #expect(recorder.snapshot.scores.count == settled)
    }
}
