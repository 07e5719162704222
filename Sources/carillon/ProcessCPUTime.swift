import Foundation

/// CPU time a process has used (user plus system), read from `/proc/PID/stat`: what the CPU benchmarks divide by wall
/// time to get "% of one core".
struct ProcessCPUTime {
    /// Seconds of CPU used so far by process `pid` (this process by default); nil when it cannot be read.
    static func seconds(pid: Int32 = getpid()) -> Double? {
        split(pid: pid).map { $0.user + $0.system }
    }

    /// Seconds of CPU used so far by process `pid`, in user mode and in the kernel (system calls, and the network
    /// stack's work the kernel charges to the process, such as a veth peer's receive path run in the sender's
    /// softirq); nil when it cannot be read. The kernel's share is what no change in the process's own code removes.
    static func split(pid: Int32 = getpid()) -> (user: Double, system: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)" the fields start at 3 (state); utime and stime are fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / tick, system / tick)
    }
}
