import Foundation

/// CPU time a process has used (user plus system), read from `/proc/PID/stat`: what the CPU benchmarks divide by wall
/// time to get "% of one core".
struct ProcessCPUTime {
    /// Seconds of CPU used so far by process `pid` (this process by default); nil when it cannot be read.
    static func seconds(pid: Int32 = getpid()) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)" the fields start at 3 (state); utime and stime are fields 14 and 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
