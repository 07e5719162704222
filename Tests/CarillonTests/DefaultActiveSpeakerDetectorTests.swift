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

    /// A policy (app code) that records whether it was called on the callback queue.
    final class QueueCheckingPolicy: ActiveSpeakerPolicy, @unchecked Sendable {
        private let inner = DefaultActiveSpeakerPolicy()
        private let lock = NSLock()
        private var calls = 0
        private var offQueue = 0

        func calculateScore(attendeeInfo: AttendeeInfo, volume: VolumeLevel) -> Double {
            let onQueue = DispatchQueue.getSpecific(key: Recorder.key) == true
            lock.withLock {
                calls += 1
                if !onQueue { offQueue += 1 }
            }
            return inner.calculateScore(attendeeInfo: attendeeInfo, volume: volume)
        }

        func prioritizeVideoSendBandwidthForActiveSpeaker() -> Bool { false }

        var snapshot: (calls: Int, offQueue: Int) { lock.withLock { (calls, offQueue) } }
    }

    /// Lets the loop and the queue hand work to each other until both are idle.
    func settle(_ loop: NIOAsyncTestingEventLoop, _ queue: DispatchQueue) async {
        for _ in 0..<4 {
            await loop.run()
            queue.sync {}
        }
    }

    /// Moves virtual time on in 10 ms steps, letting the hops between loop and queue run after each.
    func advance(_ loop: NIOAsyncTestingEventLoop, _ queue: DispatchQueue, by milliseconds: Int64) async {
        for _ in 0..<(milliseconds / 10) {
            await loop.advanceTime(by: .milliseconds(10))
            await settle(loop, queue)
        }
    }

    @Test func runsPoliciesAndObserversOnTheCallbackQueueOnTheLoopsClock() async {
        // The session's loop in virtual time: the shell's timer follows the detector's deadlines.
        let loop = NIOAsyncTestingEventLoop()
        let queue = DispatchQueue(label: "test.callbacks")
        queue.setSpecific(key: Recorder.key, value: true)
        let detector = DefaultActiveSpeakerDetector(selfAttendeeId: "self", callbackQueue: queue, eventLoop: loop)
        let recorder = Recorder(queue: queue)
        let policy = QueueCheckingPolicy()
        let alice = AttendeeInfo(attendeeId: "alice", externalUserId: "Alice")
        detector.addActiveSpeakerObserver(policy: policy, observer: recorder)
        detector.attendeesDidJoin(attendeeInfo: [alice])
        detector.volumeDidChange(volumeUpdates: [VolumeUpdate(attendeeInfo: alice, volumeLevel: .high)])
        await settle(loop, queue)
        await advance(loop, queue, by: 100)
        var snapshot = recorder.snapshot
        #expect(snapshot.lists == [["alice"]])
        // Scores every 50 ms on the loop's clock: at 50 and 100 ms.
        #expect(snapshot.scores.count == 2)
        let score = snapshot.scores.last?["alice"] ?? 0
        #expect(score > 0 && score <= 1 - 0.9 + 1e-12)
        #expect(!snapshot.wrongQueue)
        #expect(policy.snapshot.calls >= 1)
        detector.attendeesDidLeave(attendeeInfo: [alice])
        await settle(loop, queue)
        detector.removeActiveSpeakerObserver(observer: recorder)
        await settle(loop, queue)
        snapshot = recorder.snapshot
        #expect(snapshot.lists == [["alice"], []])
        #expect(!snapshot.wrongQueue)
        // After removal no more scores arrive, however long the detector runs.
        let settled = snapshot.scores.count
        await advance(loop, queue, by: 2_000)
        #expect(recorder.snapshot.scores.count == settled)
        // The policy, app code, ran only on the callback queue.
        #expect(policy.snapshot.offQueue == 0)
        await loop.shutdownGracefully()
    }
}
