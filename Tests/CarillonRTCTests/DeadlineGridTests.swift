import CarillonRTC
import NIOCore
import Testing

/// The one rule of periodic deadlines (`NIODeadline.nextOnGrid(period:after:)`): on time, late within a period, and
/// late by whole periods, the next deadline is the first grid point after the tick, never a burst of missed ones.
@Suite struct DeadlineGridTests {
    let due = NIODeadline.uptimeNanoseconds(10_000_000_000)
    let period = TimeAmount.seconds(1)

    @Test func theNextDeadlineIsTheFirstGridPointAfterTheTick() {
        #expect(due.nextOnGrid(period: period, after: due) == due + period)
        #expect(due.nextOnGrid(period: period, after: due + .milliseconds(300)) == due + period)
        #expect(due.nextOnGrid(period: period, after: due + .milliseconds(999)) == due + period)
        // A tick exactly one period late is itself on the grid: the next point is one more period on.
        #expect(due.nextOnGrid(period: period, after: due + period) == due + .seconds(2))
        // Whole periods missed are skipped, keeping the phase.
        #expect(due.nextOnGrid(period: period, after: due + .milliseconds(3_400)) == due + .seconds(4))
        // A tick before its deadline (not expected) keeps the next point.
        #expect(due.nextOnGrid(period: period, after: due - .milliseconds(10)) == due + period)
    }
}
