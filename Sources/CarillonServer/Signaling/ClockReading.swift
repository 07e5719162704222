import Foundation
import NIOCore

/// One reading of the server's clocks, passed into the sans-IO meeting cores.
///
/// Timers use the monotonic part; everything stamped on the wire (`timestamp_ms`, `ingest_time_ns`) uses the wall
/// clock part. Cores never read a clock themselves, so tests drive them with made-up readings.
public struct ClockReading: Sendable, Equatable {
    /// Monotonic time, for deadlines.
    public var monotonic: NIODeadline
    /// Wall-clock time in nanoseconds since the Unix epoch.
    public var unixNanoseconds: Int64

    /// Creates a reading from its two parts.
    public init(monotonic: NIODeadline, unixNanoseconds: Int64) {
        self.monotonic = monotonic
        self.unixNanoseconds = unixNanoseconds
    }

    /// Reads both clocks now (for the I/O shells only).
    public static func now() -> ClockReading {
        ClockReading(monotonic: .now(), unixNanoseconds: wallClockNanoseconds())
    }

    /// Reads the wall clock, with `eventLoop`'s clock as the monotonic part (a shell on that loop; the loop's clock is
    /// the one its timers follow, and a virtual one in tests).
    public init(eventLoop: any EventLoop) {
        self.init(monotonic: eventLoop.now, unixNanoseconds: Self.wallClockNanoseconds())
    }

    private static func wallClockNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// The wall clock in whole milliseconds, as `SdkSignalFrame.timestamp_ms` carries it.
    public var unixMilliseconds: UInt64 { UInt64(max(0, unixNanoseconds / 1_000_000)) }

    /// This reading moved forward by `amount` on both clocks.
    public func advanced(by amount: TimeAmount) -> ClockReading {
        ClockReading(monotonic: monotonic + amount, unixNanoseconds: unixNanoseconds + amount.nanoseconds)
    }
}
