import CarillonProtocol
import CarillonRTC
import NIOCore
import Testing

@testable import CarillonServer

@Suite struct DataMessageBufferTests {
    let now = NIODeadline.uptimeNanoseconds(5_000_000_000)

    func payload(_ topic: String) -> SdkDataMessagePayload {
        var payload = SdkDataMessagePayload()
        payload.topic = topic
        return payload
    }

    @Test func keepsAtMostCapacityDroppingTheOldest() {
        var buffer = DataMessageBuffer(capacity: 3)
        for index in 0..<5 { buffer.store(payload("t\(index)"), lifetime: .seconds(60), now: now) }
        #expect(buffer.liveMessages(now: now).map(\.topic) == ["t2", "t3", "t4"])
    }

    @Test func lifetimesAreClampedToTheMaximum() {
        var buffer = DataMessageBuffer(capacity: 10, maximumLifetime: .minutes(5))
        buffer.store(payload("long"), lifetime: .minutes(60), now: now)
        #expect(buffer.liveMessages(now: now + .minutes(5) - .nanoseconds(1)).count == 1)
        #expect(buffer.liveMessages(now: now + .minutes(5)).isEmpty)
    }

    @Test func zeroLifetimeIsNotStored() {
        var buffer = DataMessageBuffer()
        buffer.store(payload("x"), lifetime: .zero, now: now)
        #expect(buffer.count == 0)
    }

    @Test func eachMessageExpiresOnItsOwn() {
        var buffer = DataMessageBuffer()
        buffer.store(payload("long"), lifetime: .seconds(10), now: now)
        buffer.store(payload("short"), lifetime: .seconds(1), now: now)
        #expect(buffer.liveMessages(now: now + .seconds(2)).map(\.topic) == ["long"])
    }
}

@Suite struct TokenBucketTests {
    @Test func burstThenSteadyRefill() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 2)
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        #expect((0..<4).map { _ in bucket.take(now: start) } == [true, true, true, false])
        #expect(bucket.take(now: start + .milliseconds(400)) == false)
        #expect(bucket.take(now: start + .milliseconds(500)) == true)
        // Never more than the capacity, however long the pause.
        let later = start + .seconds(3600)
        #expect((0..<4).map { _ in bucket.take(now: later) } == [true, true, true, false])
    }
}
