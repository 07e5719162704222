import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import CarillonServer

/// ``PostgresMeetingStore/within(_:_:)``: the caller gets its answer at the time limit or at its own cancellation while
/// the work, which does not stop when asked (as a query waiting on a connection to a database that is away), is still
/// held; and the work's own result when it is in time. No timing is asserted: the work is held by a gate the test
/// opens only after the answer came (or, should `within` wait for the work, a minute later, so the test fails instead
/// of hanging). No database is needed: the store is never started.
@Suite struct PostgresStoreWithinTests {
    static let store = PostgresMeetingStore(
        configuration: try! PostgresConnectionURL("postgresql://nobody@localhost/none?host=/nonexistent").clientConfiguration(),
        logger: Logger(label: "within-test"))

    /// Work that ignores cancellation until the gate opens.
    final class Gate: Sendable {
        private let state = NIOLockedValueBox<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        init(watchdog: Duration = .seconds(60)) {
            Task { [weak self] in
                try? await Task.sleep(for: watchdog)
                self?.open()
            }
        }

        var isOpen: Bool { state.withLockedValue { $0.open } }

        func wait() async -> Int {
            await withCheckedContinuation { continuation in
                let open = state.withLockedValue { state -> Bool in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
            return 1
        }

        func open() {
            let waiting = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test func theTimeLimitAnswersWhileTheWorkIsStillHeld() async throws {
        let gate = Gate()
        await #expect(throws: PostgresStoreTimeout.self) {
            _ = try await Self.store.within(.milliseconds(50)) { await gate.wait() }
        }
        #expect(!gate.isOpen)
        gate.open()
        #expect(try await Self.store.within(.seconds(600)) { 7 } == 7)
    }

    @Test func cancellingTheCallerAnswersWhileTheWorkIsStillHeld() async throws {
        let gate = Gate()
        let caller = Task { try await Self.store.within(nil) { await gate.wait() } }
        caller.cancel()
        await #expect(throws: CancellationError.self) { _ = try await caller.value }
        // Cancelled before it began: it answers at once too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.store.within(nil) { await gate.wait() }
        }
        await #expect(throws: CancellationError.self) { _ = try await early.value }
        #expect(!gate.isOpen)
        gate.open()
    }
}
