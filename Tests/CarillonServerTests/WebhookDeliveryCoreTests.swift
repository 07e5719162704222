import NIOCore
import Testing

@testable import CarillonServer

/// The webhook queue without IO: order, one delivery at a time, back-off, giving up, and the queue bound.
struct WebhookDeliveryCoreTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func eventsGoOneAtATimeInOrder() {
        var core = WebhookDeliveryCore(maximumAttempts: 3, queueLimit: 10)
        let first = core.enqueue([1], now: start)
        #expect(first?.body == [1])
        #expect(core.enqueue([2], now: start) == nil)  // the first is in flight
        #expect(core.enqueue([3], now: start) == nil)
        let second = core.delivered(sequence: first!.sequence, succeeded: true, now: start)
        #expect(second?.body == [2])
        #expect(core.delivered(sequence: second!.sequence, succeeded: true, now: start)?.body == [3])
    }

    @Test func failuresBackOffDoublingAndGiveUpAfterTheLastAttempt() {
        var core = WebhookDeliveryCore(maximumAttempts: 3, queueLimit: 10)
        let sent = core.enqueue([1], now: start)!
        #expect(core.delivered(sequence: sent.sequence, succeeded: false, now: start) == nil)
        #expect(core.nextDeadline == start + .milliseconds(500))
        #expect(core.tick(now: start + .milliseconds(499)) == nil)
        let retry = core.tick(now: start + .milliseconds(500))
        #expect(retry?.attempts == 2)
        _ = core.delivered(sequence: sent.sequence, succeeded: false, now: start + .seconds(1))
        #expect(core.nextDeadline == start + .seconds(2))
        let last = core.tick(now: start + .seconds(2))
        #expect(last?.attempts == 3)
        // A later event waits behind the retries, then goes once the head is given up.
        #expect(core.enqueue([2], now: start + .seconds(2)) == nil)
        let next = core.delivered(sequence: sent.sequence, succeeded: false, now: start + .seconds(3))
        #expect(next?.body == [2] && core.abandoned == 1)
    }

    @Test func aFullQueueDropsItsOldestWaitingEvent() {
        var core = WebhookDeliveryCore(maximumAttempts: 3, queueLimit: 2)
        let head = core.enqueue([1], now: start)!
        _ = core.enqueue([2], now: start)
        _ = core.enqueue([3], now: start)  // drops [2]: [1] is in flight
        #expect(core.queue.map(\.body) == [[1], [3]] && core.abandoned == 1)
        #expect(core.delivered(sequence: head.sequence, succeeded: true, now: start)?.body == [3])
    }

    @Test func aQueueOfOneDropsTheNewEventWhileTheHeadIsInFlight() {
        var core = WebhookDeliveryCore(maximumAttempts: 3, queueLimit: 1)
        let head = core.enqueue([1], now: start)!
        #expect(core.enqueue([2], now: start) == nil)
        #expect(core.queue.map(\.body) == [[1]] && core.abandoned == 1)
        #expect(core.delivered(sequence: head.sequence, succeeded: true, now: start) == nil && core.queue.isEmpty)
        #expect(core.enqueue([3], now: start)?.body == [3])
    }
}
