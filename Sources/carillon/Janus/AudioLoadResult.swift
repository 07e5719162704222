import Foundation

/// What one server did under one meeting size in the side-by-side benchmark: its CPU, the load generator's CPU and
/// the listeners' delivery.
///
/// Why: both servers are measured with the same window and the same arithmetic, so their figures can stand in one
/// table with a ratio. Cost: two `/proc` reads per window. Threading: a value.
struct AudioLoadResult: Sendable {
    /// Server CPU, fraction of one core.
    let serverCPU: Double
    /// This process's CPU (the bots), fraction of one core.
    let loadCPU: Double
    /// Packets each listener received in the window, in the order `counts` gave them.
    let received: [Int]
    /// Packets a listener should have received in the window (50 a second).
    let expectedPackets: Double

    /// Each listener's packets received over packets expected, sorted ascending.
    var deliveries: [Double] { received.map { min(1, Double($0) / expectedPackets) }.sorted() }
    /// Listeners whose delivery was counted.
    var listeners: Int { received.count }

    /// Waits 2 s (warm-up), then measures for `seconds`: CPU of `serverPID` and of this process from `/proc`,
    /// and `counts` (packets received per listener) before and after.
    static func measure(serverPID: Int32, seconds: Int, counts: () async -> [Int]) async throws -> AudioLoadResult {
        try await Task.sleep(for: .seconds(2))
        let before = await counts()
        let wallStart = ContinuousClock.now
        let serverStart = ProcessCPUTime.seconds(pid: serverPID) ?? 0
        let selfStart = ProcessCPUTime.seconds() ?? 0
        try await Task.sleep(for: .seconds(seconds))
        let wall = wallStart.duration(to: .now).seconds
        let server = ((ProcessCPUTime.seconds(pid: serverPID) ?? 0) - serverStart) / wall
        let load = ((ProcessCPUTime.seconds() ?? 0) - selfStart) / wall
        let after = await counts()
        return AudioLoadResult(serverCPU: server, loadCPU: load, received: zip(after, before).map { $0 - $1 },
                               expectedPackets: 50 * wall)
    }

    /// Delivery to the worst listener.
    var worst: Double { deliveries.first ?? 0 }
    /// Delivery to the median listener.
    var median: Double { deliveries.isEmpty ? 0 : deliveries[deliveries.count / 2] }

    /// One line for the log.
    func line(server: String, attendees: Int) -> String {
        String(format: "%@ %d attendees: server %.1f %% of one core (%.2f %% per attendee), delivery worst %.1f %% median %.1f %% over %d listeners, load generator %.1f %% (%.2f %% per attendee)",
               server, attendees, serverCPU * 100, serverCPU * 100 / Double(attendees), worst * 100, median * 100,
               deliveries.count, loadCPU * 100, loadCPU * 100 / Double(attendees))
    }

    /// The side-by-side Markdown table with the Janus/Carillon CPU ratio per row and the first size under 99 %.
    static func table(_ rows: [(Int, AudioLoadResult?, AudioLoadResult?)], talkers: Int, seconds: Int, listeners: String,
                      eventLoops: Int?) -> String {
        func cpu(_ result: AudioLoadResult?, _ size: Int) -> String {
            guard let result else { return "–" }
            return String(format: "%.1f %% (%.2f %%)", result.serverCPU * 100, result.serverCPU * 100 / Double(size))
        }
        func delivery(_ result: AudioLoadResult?) -> String {
            guard let result else { return "–" }
            return String(format: "%.1f / %.1f %%", result.worst * 100, result.median * 100)
        }
        func load(_ result: AudioLoadResult?) -> String {
            guard let result else { return "–" }
            return String(format: "%.0f %%", result.loadCPU * 100)
        }
        var lines = [
            "Janus \(eventLoops.map { "event_loops = \($0)" } ?? "defaults"), \(talkers) talkers, listeners \(listeners), \(seconds) s per row; load average \(loadAverage())",
            "| attendees | Janus CPU (per attendee) | Carillon CPU (per attendee) | Janus / Carillon | delivery worst / median, Janus | Carillon | load generator, Janus | Carillon |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for (size, janus, carillon) in rows {
            let ratio = if let janus, let carillon, carillon.serverCPU > 0 { String(format: "%.1f×", janus.serverCPU / carillon.serverCPU) } else { "–" }
            lines.append("| \(size) | \(cpu(janus, size)) | \(cpu(carillon, size)) | \(ratio) | \(delivery(janus)) | \(delivery(carillon)) | \(load(janus)) | \(load(carillon)) |")
        }
        func firstBreak(_ result: ((Int, AudioLoadResult?, AudioLoadResult?)) -> AudioLoadResult?) -> String {
            guard rows.contains(where: { result($0) != nil }) else { return "not measured" }
            return rows.first { (result($0)?.worst ?? 1) < 0.99 }.map { "\($0.0)" } ?? "none of the sizes measured"
        }
        let janusBreak = firstBreak { $0.1 }
        let carillonBreak = firstBreak { $0.2 }
        lines.append("first size with a listener under 99 % delivery: Janus \(janusBreak), Carillon \(carillonBreak)")
        return lines.joined(separator: "\n")
    }

    /// `/proc/loadavg`'s three averages.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
