import NIOConcurrencyHelpers

/// The race behind ``PostgresMeetingStore/within(_:_:)``: the work, a timer and the caller's cancellation each try to
/// finish it; the first resumes the caller and cancels the other two tasks, later ones do nothing.
final class WithinRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var tasks: [Task<Void, Never>] = []
        /// Set when the race finished before it began (the caller was cancelled at once).
        var early: Result<Value, any Error>?
        var done = false
    }

    private let state = NIOLockedValueBox(State())

    /// Starts the race with the caller's continuation and the two tasks.
    func begin(_ continuation: CheckedContinuation<Value, any Error>, work: Task<Void, Never>, timer: Task<Void, Never>) {
        let early = state.withLockedValue { state -> Result<Value, any Error>? in
            if state.done { return state.early }
            state.continuation = continuation
            state.tasks = [work, timer]
            return nil
        }
        if let early {
            work.cancel()
            timer.cancel()
            continuation.resume(with: early)
        }
    }

    /// Finishes the race with `result` unless it has finished already.
    func finish(with result: Result<Value, any Error>) {
        let (continuation, tasks) = state.withLockedValue { state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
            guard !state.done else { return (nil, []) }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = result
                return (nil, [])
            }
            state.continuation = nil
            defer { state.tasks = [] }
            return (continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
