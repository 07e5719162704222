import NIOCore

/// One timer on an event loop that follows a sans-IO core's `nextDeadline`: ``follow(_:)`` after every step of the
/// core moves it only when the deadline changed, and cancels it when there is none.
///
/// Threading: confined to its event loop (create it there or before use; call it only there). `@unchecked Sendable`
/// only so the scheduled task can reach it; the loop is the lock.
public final class DeadlineTimer: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let fire: @Sendable () -> Void
    private var task: Scheduled<Void>?
    /// The deadline the timer is set for, nil when it is not set.
    public private(set) var deadline: NIODeadline?

    /// A timer on `eventLoop` that calls `fire` on the loop when a followed deadline passes. Keep `fire` from
    /// capturing the timer's owner strongly when the owner holds the timer.
    public init(eventLoop: any EventLoop, fire: @escaping @Sendable () -> Void) {
        self.eventLoop = eventLoop
        self.fire = fire
    }

    deinit { task?.cancel() }

    /// Sets the timer for `deadline` (nil: no timer), doing nothing when it is already set for that deadline.
    public func follow(_ deadline: NIODeadline?) {
        eventLoop.assertInEventLoop()
        guard deadline != self.deadline else { return }
        task?.cancel()
        task = nil
        self.deadline = deadline
        guard let deadline else { return }
        task = eventLoop.scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            self.task = nil
            self.deadline = nil
            self.fire()
        }
    }

    /// Cancels the timer.
    public func cancel() { follow(nil) }
}
