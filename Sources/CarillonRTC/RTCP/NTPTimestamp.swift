#if canImport(Glibc)
import Glibc
#endif

/// A 64-bit NTP timestamp as RTCP carries it (RFC 3550 §4): seconds since 1900 in the high 32 bits, the fraction of
/// a second in the low 32.
///
/// Sender reports carry it whole; reception reports echo its middle 32 bits (``compact``) so the sender can measure
/// the round trip.
public struct NTPTimestamp: Sendable, Equatable {
    /// Seconds from 1900 to 1970, the Unix epoch.
    static let unixEpochOffset: UInt64 = 2_208_988_800

    /// The 64-bit value.
    public var value: UInt64

    /// Wraps a 64-bit NTP value.
    public init(_ value: UInt64) {
        self.value = value
    }

    /// The timestamp of a wall-clock time given in nanoseconds since the Unix epoch.
    public init(unixNanoseconds: UInt64) {
        let seconds = unixNanoseconds / 1_000_000_000 + Self.unixEpochOffset
        let fraction = (unixNanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        value = seconds << 32 | fraction
    }

    /// The wall clock now.
    public static func now() -> NTPTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return NTPTimestamp(unixNanoseconds: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// The middle 32 bits (16 bits of seconds, 16 of fraction): the form of `LSR` in a report block, in 1/65536 s.
    public var compact: UInt32 { UInt32(truncatingIfNeeded: value >> 16) }
}
