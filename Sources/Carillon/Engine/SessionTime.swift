import CarillonRTC
import Foundation
import NIOCore

/// One reading of the client's clocks for the session's sans-IO cores: monotonic for timers and arrival times, wall
/// clock for stamps (signaling frames in milliseconds, RTCP's NTP timestamps and round trips in finer units).
///
/// The session's shell takes the only reading (``reading(monotonic:)``, with its loop's `now`); cores and tests build
/// values themselves, so they run in virtual time. A plain value.
struct SessionTime: Sendable, Equatable {
    var monotonic: NIODeadline
    /// The wall clock, nanoseconds since the Unix epoch.
    var unixNanoseconds: UInt64

    init(monotonic: NIODeadline, unixNanoseconds: UInt64) {
        self.monotonic = monotonic
        self.unixNanoseconds = unixNanoseconds
    }

    init(monotonic: NIODeadline, unixMilliseconds: UInt64) {
        self.init(monotonic: monotonic, unixNanoseconds: unixMilliseconds * 1_000_000)
    }

    /// The wall clock in whole milliseconds since the Unix epoch (signaling frames' `timestampMs`).
    var unixMilliseconds: UInt64 { unixNanoseconds / 1_000_000 }

    /// The wall clock as an NTP timestamp (sender reports, round trips from report blocks).
    var ntp: NTPTimestamp { NTPTimestamp(unixNanoseconds: unixNanoseconds) }

    /// Reads the wall clock now and pairs it with `monotonic` (the session loop's `now`): the one place a session
    /// reads the wall clock.
    static func reading(monotonic: NIODeadline) -> SessionTime {
        SessionTime(monotonic: monotonic, unixNanoseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1e9)))
    }

    func advanced(by amount: TimeAmount) -> SessionTime {
        SessionTime(monotonic: monotonic + amount, unixNanoseconds: unixNanoseconds + UInt64(max(0, amount.nanoseconds)))
    }
}
