#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit: `carillon serve` raises its soft limit to the hard one at start, since every
/// signaling socket, HTTP connection and database file takes a descriptor and the usual soft limit (1024) is what a
/// few hundred idle connections reach.
public enum DescriptorLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (capped at `ceiling`); returns the soft limit now in force and
    /// the hard one, or nil when the limit cannot be read.
    public static func raise(ceiling: UInt64 = 1 << 20) -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let target = min(UInt64(limit.rlim_max), ceiling)
        if UInt64(limit.rlim_cur) < target {
            var raised = limit
            raised.rlim_cur = rlim_t(target)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// The soft `RLIMIT_NOFILE` in force, or nil when it cannot be read (or is unlimited).
    public static func current() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }
}
