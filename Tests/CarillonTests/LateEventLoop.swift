import Dispatch
import NIOCore
import NIOEmbedded

/// An `EmbeddedEventLoop` whose tasks can run late: each runs when the virtual clock reaches its deadline, as
/// there, but `now` reads `lateness` further on, as on a loop that got to the task late because something else held
/// it (a slide being drawn). Everything else is the embedded loop's.
///
/// Threading: the test's thread only, like the loop it wraps.
final class LateEventLoop: EventLoop, @unchecked Sendable {
    let base: EmbeddedEventLoop
    /// How late the loop is now.
    var lateness = TimeAmount.zero

    init(base: EmbeddedEventLoop) { self.base = base }

    var now: NIODeadline { base.now + lateness }
    var inEventLoop: Bool { base.inEventLoop }
    func execute(_ task: @escaping @Sendable () -> Void) { base.execute(task) }
    func scheduleTask<T>(deadline: NIODeadline, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        base.scheduleTask(deadline: deadline, task)
    }
    func scheduleTask<T>(in delay: TimeAmount, _ task: @escaping @Sendable () throws -> T) -> Scheduled<T> {
        base.scheduleTask(deadline: now + delay, task)
    }
    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        base.shutdownGracefully(queue: queue, callback)
    }
}
