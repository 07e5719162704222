import NIOConcurrencyHelpers
import NIOCore

/// The ``MediaLoopCounters`` of every event loop that has run a meeting's media, so a scrape can add them up.
///
/// Threading: safe from any thread. The lock is taken when a meeting's media is created and once per scrape, never
/// per packet.
public final class MediaCounterDirectory: Sendable {
    private let loops = NIOLockedValueBox<[ObjectIdentifier: MediaLoopCounters]>([:])

    /// An empty directory.
    public init() {}

    /// The counters of `eventLoop`, made on first use.
    func counters(for eventLoop: any EventLoop) -> MediaLoopCounters {
        loops.withLockedValue { loops in
            let key = ObjectIdentifier(eventLoop)
            if let existing = loops[key] { return existing }
            let made = MediaLoopCounters(eventLoop: eventLoop)
            loops[key] = made
            return made
        }
    }

    /// The sum over every loop, each read on its own loop (one hop per loop that ever ran media).
    public func totals() async throws -> MediaTotals {
        var sum = MediaTotals()
        for counters in loops.withLockedValue({ Array($0.values) }) {
            sum.add(try await counters.eventLoop.submit { counters.snapshot() }.get())
        }
        return sum
    }
}
