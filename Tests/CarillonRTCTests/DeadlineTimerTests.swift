import CarillonRTC
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The one-timer-per-core helper on an embedded loop's virtual clock.
@Suite struct DeadlineTimerTests {
    final class Count: Sendable {
        let fired = Mutex(0)
        var value: Int { fired.withLock { $0 } }
    }

    @Test func followsOnlyChangedDeadlinesAndFiresOnce() {
        let loop = EmbeddedEventLoop()
        let start = loop.now
        let count = Count()
        let timer = DeadlineTimer(eventLoop: loop) { count.fired.withLock { $0 += 1 } }
        timer.follow(start + .milliseconds(10))
        loop.advanceTime(by: .milliseconds(5))
        timer.follow(start + .milliseconds(10))
        #expect(count.value == 0 && timer.deadline == start + .milliseconds(10))
        // Moved later: the earlier deadline no longer fires.
        timer.follow(start + .milliseconds(20))
        loop.advanceTime(by: .milliseconds(10))
        #expect(count.value == 0)
        loop.advanceTime(by: .milliseconds(5))
        #expect(count.value == 1 && timer.deadline == nil)
        loop.advanceTime(by: .seconds(1))
        #expect(count.value == 1)
        // The same deadline again after firing is a new timer.
        timer.follow(loop.now + .milliseconds(1))
        loop.advanceTime(by: .milliseconds(1))
        #expect(count.value == 2)
    }

    @Test func nilCancelAndReleaseStopIt() {
        let loop = EmbeddedEventLoop()
        let count = Count()
        let timer = DeadlineTimer(eventLoop: loop) { count.fired.withLock { $0 += 1 } }
        timer.follow(loop.now + .milliseconds(10))
        timer.follow(nil)
        timer.follow(loop.now + .milliseconds(10))
        timer.cancel()
        loop.advanceTime(by: .milliseconds(50))
        #expect(count.value == 0)
        var released: DeadlineTimer? = DeadlineTimer(eventLoop: loop) { count.fired.withLock { $0 += 1 } }
        released?.follow(loop.now + .milliseconds(10))
        released = nil
        loop.advanceTime(by: .milliseconds(50))
        #expect(count.value == 0 && released == nil)
    }
}
