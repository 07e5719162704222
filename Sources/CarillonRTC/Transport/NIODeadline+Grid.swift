import NIOCore

extension NIODeadline {
    /// The first point after `now` of the grid `self`, `self + period`, `self + 2 × period`, ...: the next deadline of
    /// a periodic job (reports, metrics, activity) whose tick due at `self` ran at `now`. A tick that ran late keeps
    /// the grid's phase, and one that missed whole periods skips them instead of catching up in a burst (the work of a
    /// periodic job covers the time since its last run). The one rule every periodic deadline follows; the 20 ms
    /// media clock, which must produce every frame, is ``MediaFrameClock``.
    public func nextOnGrid(period: TimeAmount, after now: NIODeadline) -> NIODeadline {
        precondition(period > .zero, "a grid needs a positive period")
        guard now >= self else { return self + period }
        let steps = (now - self).nanoseconds / period.nanoseconds + 1
        return self + .nanoseconds(steps * period.nanoseconds)
    }
}
