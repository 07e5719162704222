import Foundation

/// A private network namespace for a benchmark: a veth pair with both ends inside (`v0` 10.203.0.1 for the servers,
/// `v1` 10.203.0.2 for the bots), loopback up, no route out.
///
/// Why: Janus never gathers a loopback candidate, so it and the bots need a non-loopback interface; a namespace the
/// bench creates keeps that traffic off every real network. Cost: a handful of `ip` commands. ``remove()`` kills
/// whatever still runs inside (SIGKILL) and deletes the namespace. Threading: one owner.
struct BenchNamespace {
    /// What setting up or using the namespace ran into.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The servers' address (on `v0`).
    static let serverAddress = "10.203.0.1"
    /// The bots' address (on `v1`).
    static let botAddress = "10.203.0.2"
    /// The servers' interface.
    static let serverInterface = "v0"

    let name: String

    /// Creates the namespace `name`; needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN). On failure nothing is left.
    static func create(name: String) throws -> BenchNamespace {
        guard geteuid() == 0 else {
            throw Failure(description: "this benchmark creates a network namespace (ip netns add), which needs root: run it as root")
        }
        let namespace = BenchNamespace(name: name)
        do {
            try run(["ip", "netns", "add", name])
            for command in [
                ["ip", "link", "set", "lo", "up"],
                ["ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"],
                ["ip", "addr", "add", "\(serverAddress)/24", "dev", "v0"],
                ["ip", "addr", "add", "\(botAddress)/24", "dev", "v1"],
                ["ip", "link", "set", "v0", "up"],
                ["ip", "link", "set", "v1", "up"],
                // Janus (libnice) sends out of v0 itself, so the packet arrives on v1 from an address of this same
                // namespace: without accept_local the kernel drops it (and the ARP exchange) as a martian.
                ["sh", "-c", "for i in all default v0 v1; do echo 1 > /proc/sys/net/ipv4/conf/$i/accept_local; echo 0 > /proc/sys/net/ipv4/conf/$i/rp_filter; done"],
            ] {
                try run(["ip", "netns", "exec", name] + command)
            }
        } catch {
            namespace.remove()
            throw error
        }
        return namespace
    }

    /// Kills every process left in the namespace and deletes it (each step bounded by `ip`'s own run time).
    func remove() {
        if let pids = try? Self.output(["ip", "netns", "pids", name]) {
            for pid in pids.split(whereSeparator: \.isWhitespace).compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? Self.run(["ip", "netns", "del", name])
    }

    /// Runs `arguments` inside the namespace as a child process, without waiting.
    func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", name] + arguments
        try process.run()
        return process
    }

    /// Whether `ip netns` works here at all (root, iproute2, kernel support), by creating and removing a namespace.
    static func isAvailable() -> Bool {
        guard geteuid() == 0, let namespace = try? create(name: "carillon-probe-\(getpid())") else { return false }
        namespace.remove()
        return true
    }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> String { try output(arguments) }

    private static func output(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { throw Failure(description: "cannot run \(arguments.joined(separator: " ")): \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }
}
