import NIOCore

/// Back-pressure between one signaling socket's reader and its meeting's event loop: at most ``capacity`` of the
/// socket's frames wait on the loop at once.
///
/// Each frame is one task on the meeting's loop with bounded work (a frame is at most 256 KiB, 16 data messages, 3
/// send and 64 receive streams). Without a window the reader decoded and queued as fast as the socket delivered, so a
/// flooding client could pile thousands of tasks in front of every other meeting on that loop before its frame limit
/// (checked when a task runs) caught up. With it, the reader waits for its oldest frame to be handled before reading
/// more, the client's TCP window fills, and the loop holds at most `capacity` frames per socket.
///
/// Threading: owned by the socket's reader task.
struct InboundFrameWindow {
    /// Frames one socket may have waiting on its meeting's loop.
    let capacity: Int
    private var waiting: [EventLoopFuture<Void>] = []
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a window holds at least one frame")
        self.capacity = capacity
    }

    /// Frames handed to the loop and not known to be handled.
    var count: Int { waiting.count - head }

    /// Records a frame handed to the loop (`handled` completes when the loop has run it); returns the oldest frame's
    /// future to wait for when the window is full, nil otherwise.
    mutating func add(_ handled: EventLoopFuture<Void>) -> EventLoopFuture<Void>? {
        waiting.append(handled)
        guard count > capacity else { return nil }
        let oldest = waiting[head]
        head += 1
        if head >= 64, head * 2 >= waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return oldest
    }
}
