import Foundation

/// Pins a benchmark's server process, every thread of it, to a list of CPUs (util-linux `taskset -a -p -c`), so a
/// bench can compare the same load on one core and on two. Threads the server starts later inherit the pinning.
enum ServerPinning {
    /// Why the server could not be pinned.
    struct Failure: Error, CustomStringConvertible {
        let cpus: String
        let status: Int32

        var description: String { "taskset could not pin the server to CPUs \(cpus) (exit status \(status))" }
    }

    /// Pins `pid` to `cpus` (a `taskset` list such as `0` or `0,1`); nothing when `cpus` is nil.
    static func pin(pid: Int32, cpus: String?) throws {
        guard let cpus else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-a", "-p", "-c", cpus, String(pid)]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(cpus: cpus, status: process.terminationStatus) }
    }
}
