import Dispatch
import Foundation
import Logging
import Testing

@testable import CarillonServer

/// ``PostgresMeetingStore/within(_:_:)``: the caller gets its answer at the time limit or at its own cancellation even
/// when the work does not stop when asked (a query waiting on a connection to a database that is away), and the
/// work's own result when it is in time. No database is needed: the store is never started.
@Suite struct PostgresStoreWithinTests {
    static let store = PostgresMeetingStore(
        configuration: try! PostgresConnectionURL("postgresql://nobody@localhost/none?host=/nonexistent").clientConfiguration(),
        logger: Logger(label: "within-test"))

    /// Work that ignores cancellation for `duration` (suspended, holding no thread).
    static func stubborn(_ duration: Duration) async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(duration.components.seconds)) { continuation.resume(returning: 1) }
        }
    }

    @Test func theTimeLimitAnswersWithoutWaitingForTheWork() async throws {
        let store = Self.store
        let started = ContinuousClock.now
        await #expect(throws: PostgresStoreTimeout.self) {
            _ = try await store.within(.milliseconds(50)) { await Self.stubborn(.seconds(3)) }
        }
        #expect(started.duration(to: .now) < .seconds(2))
        #expect(try await Self.store.within(.seconds(10)) { 7 } == 7)
    }

    @Test func cancellingTheCallerAnswersWithoutWaitingForTheWork() async throws {
        let store = Self.store
        let started = ContinuousClock.now
        let caller = Task { try await store.within(nil) { await Self.stubborn(.seconds(3)) } }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        await #expect(throws: CancellationError.self) { _ = try await caller.value }
        #expect(started.duration(to: .now) < .seconds(2))
        // Cancelled before it begins: it answers at once too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.within(nil) { await Self.stubborn(.seconds(3)) }
        }
        await #expect(throws: CancellationError.self) { _ = try await early.value }
        #expect(started.duration(to: .now) < .seconds(2))
    }
}
