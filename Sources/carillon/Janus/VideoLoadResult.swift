import Foundation

/// What one server did with one video meeting (senders × receivers forwarded streams) in a video benchmark: its
/// CPU, the load generator's CPU and the delivery of every forwarded stream.
///
/// Why: `bench video-meeting` and `bench janus-video` measure with the same window and the same arithmetic, so their
/// figures can stand in one table with a ratio. Cost: a value. Threading: a value.
struct VideoLoadResult: Sendable {
    /// Publishers.
    let senders: Int
    /// Subscribers, each receiving every publisher.
    let receivers: Int
    /// Identical meetings measured at once (1 but for `bench janus-video --parallel`).
    var meetings = 1
    /// Server CPU, fraction of one core.
    let serverCPU: Double
    /// The part of ``serverCPU`` spent in the kernel (fraction of one core); nil when not measured.
    var serverKernelCPU: Double? = nil
    /// This process's CPU (the bots or SDK sessions), fraction of one core.
    let loadCPU: Double
    /// Complete frames per second on every forwarded stream (missing streams count 0), sorted ascending.
    let frameRates: [Double]
    /// Mean kbit/s per forwarded stream (RTP payload bytes for SDK receivers, whole packets' payloads for bots).
    let kilobitsPerStream: Double
    /// Packets received over packets sent, per forwarded stream, sorted ascending (nil when not counted: the SDK's
    /// statistics count frames and bytes, not packets).
    let packetDeliveries: [Double]?

    /// Forwarded streams.
    var streams: Int { meetings * senders * receivers }

    /// One line for the log.
    func line(server: String) -> String {
        let size = meetings > 1 ? "\(meetings) × \(senders) × \(receivers)" : "\(senders) × \(receivers)"
        var text = String(format: "%@ %@ (%d forwarded streams): server %.1f %% of one core (%.2f %% per forwarded stream), frames per second per stream min %.1f median %.1f, %.0f kbit/s per stream, load generator %.1f %%",
                          server, size, streams, serverCPU * 100, serverCPU * 100 / Double(streams),
                          frameRates.first ?? 0, median(frameRates), kilobitsPerStream, loadCPU * 100)
        if let packetDeliveries {
            text += String(format: ", packets delivered worst %.1f %% median %.1f %%", (packetDeliveries.first ?? 0) * 100,
                           median(packetDeliveries) * 100)
        }
        return text
    }

    /// A second line for the log, after ``line(server:)`` (which scripts read, so it stays as it is): the server's CPU
    /// split into user mode and the kernel, per forwarded stream too; nil when the split was not measured.
    func kernelLine(server: String) -> String? {
        guard let kernel = serverKernelCPU else { return nil }
        let size = meetings > 1 ? "\(meetings) × \(senders) × \(receivers)" : "\(senders) × \(receivers)"
        let user = serverCPU - kernel
        return String(format: "%@ %@: server user %.1f %% (%.3f %% per forwarded stream), kernel %.1f %% (%.3f %%)",
                      server, size, user * 100, user * 100 / Double(streams), kernel * 100,
                      kernel * 100 / Double(streams))
    }

    /// The side-by-side Markdown table, one row per meeting, with the Janus/Carillon CPU ratio.
    static func table(_ rows: [(String, VideoLoadResult?, VideoLoadResult?)], seconds: Int, eventLoops: Int?) -> String {
        func cpu(_ result: VideoLoadResult?) -> String {
            guard let result else { return "–" }
            return String(format: "%.1f %% (%.2f %%)", result.serverCPU * 100, result.serverCPU * 100 / Double(result.streams))
        }
        func delivery(_ result: VideoLoadResult?) -> String {
            guard let result else { return "–" }
            return String(format: "%.1f / %.1f", result.frameRates.first ?? 0, result.median(result.frameRates))
        }
        func rate(_ result: VideoLoadResult?) -> String { result.map { String(format: "%.0f", $0.kilobitsPerStream) } ?? "–" }
        func load(_ result: VideoLoadResult?) -> String { result.map { String(format: "%.0f %%", $0.loadCPU * 100) } ?? "–" }
        var lines = [
            "Janus \(eventLoops.map { "event_loops = \($0)" } ?? "defaults"), 640x360 VP8 at 15 fps, \(seconds) s per row; load average \(AudioLoadResult.loadAverage())",
            "| senders × receivers | Janus CPU (per forwarded stream) | Carillon CPU (per forwarded stream) | Janus / Carillon | fps per stream min / median, Janus | Carillon | kbit/s per stream, Janus | Carillon | load generator, Janus | Carillon |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for (size, janus, carillon) in rows {
            let ratio = if let janus, let carillon, carillon.serverCPU > 0 { String(format: "%.1f×", janus.serverCPU / carillon.serverCPU) } else { "–" }
            lines.append("| \(size) | \(cpu(janus)) | \(cpu(carillon)) | \(ratio) | \(delivery(janus)) | \(delivery(carillon)) | \(rate(janus)) | \(rate(carillon)) | \(load(janus)) | \(load(carillon)) |")
        }
        return lines.joined(separator: "\n")
    }

    private func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values[values.count / 2] }
}
