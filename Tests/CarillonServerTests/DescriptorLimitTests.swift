#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import CarillonServer

@Suite struct DescriptorLimitTests {
    /// The soft limit is raised to the hard one (within the ceiling). Lowered by one first, so the raise is seen
    /// without starving tests that run beside this one of descriptors.
    @Test func theSoftLimitIsRaisedToTheHardOne() throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        if limit.rlim_cur > 64 {
            limit.rlim_cur -= 1
            try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        }
        let raised = try #require(DescriptorLimit.raise(ceiling: 1 << 20))
        #expect(raised.soft == min(UInt64(limit.rlim_max), 1 << 20) && raised.hard == UInt64(limit.rlim_max))
        var now = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &now) == 0)
        #expect(UInt64(now.rlim_cur) == raised.soft)
    }
}
