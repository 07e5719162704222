import Foundation
import Synchronization

/// Runs a benchmark command again inside a fresh ``BenchNamespace`` (`ip netns exec NS carillon ...
/// --inside-namespace NS`), forwarding SIGINT and SIGTERM, and removes the namespace and everything left in it
/// when the child ends, fails or is interrupted.
///
/// Why: Janus, `carillon serve` and the bots must share a namespace, and nothing may outlive the benchmark. Cost: one
/// child process. Cleanup is bounded: SIGTERM, then SIGKILL after 10 s, then the namespace's remaining processes
/// are killed. Threading: called once from the command's task.
enum NamespacedRun {
    /// Creates the namespace, runs `arguments` (this binary's own, plus `--inside-namespace`) in it, cleans up.
    static func run(arguments: [String]) async throws {
        let namespace = try BenchNamespace.create(name: "carillon-bench-\(getpid())")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let child: Process
        do {
            child = try namespace.launch([executable] + arguments + ["--inside-namespace", namespace.name])
        } catch {
            namespace.remove()
            throw error
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupted = Atomic<Bool>(false)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                interrupted.store(true, ordering: .relaxed)
                if child.isRunning { kill(child.processIdentifier, SIGTERM) }
            }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
        var killAt: ContinuousClock.Instant?
        while child.isRunning {
            if interrupted.load(ordering: .relaxed) {
                let deadline = killAt ?? ContinuousClock.now + .seconds(10)
                killAt = deadline
                if ContinuousClock.now >= deadline { kill(child.processIdentifier, SIGKILL) }
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        namespace.remove()
        guard child.terminationStatus == 0, !interrupted.load(ordering: .relaxed) else {
            throw BenchNamespace.Failure(description: interrupted.load(ordering: .relaxed)
                ? "interrupted; the namespace \(namespace.name) and its processes are gone"
                : "the benchmark inside the namespace failed (exit \(child.terminationStatus)); the namespace is removed")
        }
    }
}
