import Foundation
import NIOCore

/// The one clock of a recording: milliseconds since it started on the monotonic clock, and the wall-clock time of
/// any such moment (for file names and the JSON lines' timestamps), derived from one reading taken at the start so
/// audio, video and events agree.
struct RecordingClock: Sendable {
    let start: ClockReading

    /// Milliseconds from the start to `now` (never negative).
    func milliseconds(_ now: NIODeadline) -> Int64 {
        max(0, (now - start.monotonic).nanoseconds / 1_000_000)
    }

    /// `YYYY-MM-DD-HH-MM-SS-mmm` (UTC) of the moment `milliseconds` after the start: what file names begin with, so
    /// a folder lists in time order.
    func fileStamp(_ milliseconds: Int64) -> String {
        let parts = utc(milliseconds)
        return String(format: "%04d-%02d-%02d-%02d-%02d-%02d-%03d", parts.year, parts.month, parts.day, parts.hour,
                      parts.minute, parts.second, parts.millisecond)
    }

    /// ISO 8601 (UTC, milliseconds) of the moment `milliseconds` after the start.
    func iso8601(_ milliseconds: Int64) -> String {
        let parts = utc(milliseconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year, parts.month, parts.day, parts.hour,
                      parts.minute, parts.second, parts.millisecond)
    }

    private func utc(_ milliseconds: Int64)
        -> (year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32, millisecond: Int32) {
        let total = start.unixNanoseconds / 1_000_000 + milliseconds
        var seconds = time_t(total / 1_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return (parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                Int32(total % 1_000))
    }
}
