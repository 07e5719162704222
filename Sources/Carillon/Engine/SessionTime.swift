import Foundation
import NIOCore

/// One reading of the client's clocks for the sans-IO session core: monotonic for timers, wall clock for stamps.
struct SessionTime: Sendable {
    var monotonic: NIODeadline
    var unixMilliseconds: UInt64

    static func now() -> SessionTime {
        SessionTime(monotonic: .now(), unixMilliseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1000)))
    }

    func advanced(by amount: TimeAmount) -> SessionTime {
        SessionTime(monotonic: monotonic + amount, unixMilliseconds: unixMilliseconds + UInt64(max(0, amount.nanoseconds / 1_000_000)))
    }
}
