import NIOCore
import Testing

@testable import Carillon

@Suite struct ReconnectBackoffTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func fullJitterCeilingsDoubleUpToFiveSeconds() {
        var backoff = ReconnectBackoff(budget: .seconds(120))
        let ceilings = (0..<6).map { _ in (backoff.nextAttempt(now: start, random: 0.999_999)! - start).nanoseconds / 1_000_000 }
        #expect(ceilings == [999, 1999, 3999, 4999, 4999, 4999])
        var fresh = ReconnectBackoff(budget: .seconds(120))
        #expect(fresh.nextAttempt(now: start, random: 0) == start)
        #expect(fresh.nextAttempt(now: start, random: 0.25) == start + .milliseconds(500))
    }

    @Test func budgetCountsFromTheEpisodeStartAndResets() {
        var backoff = ReconnectBackoff(budget: .seconds(10))
        #expect(backoff.nextAttempt(now: start, random: 0.5) != nil)
        #expect(backoff.nextAttempt(now: start + .seconds(9), random: 0.5) != nil)
        #expect(backoff.nextAttempt(now: start + .seconds(10), random: 0.5) == nil)
        backoff.reset()
        #expect(backoff.nextAttempt(now: start + .seconds(60), random: 0) == start + .seconds(60))
    }
}
