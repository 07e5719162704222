import CarillonRTC
import CoreMetrics
import NIOConcurrencyHelpers
import Prometheus

/// The server's metrics, kept in a Prometheus registry through swift-metrics and rendered in Prometheus' text format.
///
/// Two kinds of values: those counted where they happen, off the media path (control-API requests by operation and
/// status, open signaling sessions), and those the media path keeps in plain integers on its own loops (datagrams and
/// bytes of the media port, drops, mixer and routing time; see ``MediaLoopCounters``), which ``render(_:)`` reads at
/// scrape time and adds to the Prometheus counters as the difference since the previous scrape. The kernel's drops
/// for the media socket come from `/proc/net/udp` and `/proc/net/udp6` at scrape time.
///
/// Threading: safe from any thread. A scrape takes one lock briefly, after all its reads.
public final class ServerMetrics: Sendable {
    /// The registry everything is kept in.
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sessions: CoreMetrics.Meter
    private let meetings: CoreMetrics.Meter
    private let liveMeetings: CoreMetrics.Meter
    private let attendees: CoreMetrics.Meter
    private let exported = NIOLockedValueBox(Exported())

    /// Values of the last scrape, to turn running totals into counter increments.
    private struct Exported {
        var port = MediaPortStatistics()
        var media = MediaTotals()
        var kernelDrops = 0
    }

    /// What a scrape reads from the server.
    public struct Reading: Sendable {
        /// Meetings in the store (created, neither deleted nor expired).
        public var meetings: Int
        /// Meetings with a live room (an attendee connected since the server started).
        public var liveMeetings: Int
        /// Attendees of the stored meetings.
        public var attendees: Int
        /// The media port's counters.
        public var port: MediaPortStatistics
        /// The meetings' media counters.
        public var media: MediaTotals
        /// The kernel's receive-buffer drops for the media socket, when `/proc` tells.
        public var kernelDrops: Int?

        /// Creates a reading.
        public init(meetings: Int, liveMeetings: Int, attendees: Int, port: MediaPortStatistics, media: MediaTotals,
                    kernelDrops: Int?) {
            self.meetings = meetings
            self.liveMeetings = liveMeetings
            self.attendees = attendees
            self.port = port
            self.media = media
            self.kernelDrops = kernelDrops
        }
    }

    /// Creates the metrics with every series at zero.
    public init() {
        factory = PrometheusMetricsFactory(registry: registry)
        sessions = CoreMetrics.Meter(label: "carillon_signaling_sessions", factory: factory)
        meetings = CoreMetrics.Meter(label: "carillon_meetings", factory: factory)
        liveMeetings = CoreMetrics.Meter(label: "carillon_meetings_live", factory: factory)
        attendees = CoreMetrics.Meter(label: "carillon_attendees", factory: factory)
        // Made now so that a scrape shows every series from the start, not only once it moved.
        for cause in DropCause.allCases { counter("carillon_media_datagrams_dropped_total", [("cause", cause.rawValue)]) }
        for direction in ["in", "out"] {
            counter("carillon_media_datagrams_total", [("direction", direction)])
            counter("carillon_media_bytes_total", [("direction", direction)])
        }
        counter("carillon_mixer_ticks_total")
        floatingCounter("carillon_mixer_tick_seconds_total")
        counter("carillon_media_packets_routed_total")
        floatingCounter("carillon_media_routing_seconds_total")
        CoreMetrics.Gauge(label: "carillon_mixer_tick_max_seconds", factory: factory).record(0)
    }

    /// Why a media datagram was dropped (the `cause` label).
    enum DropCause: String, CaseIterable {
        /// The kernel's socket receive buffer was full (`/proc/net/udp` drops).
        case kernelReceiveBuffer = "kernel_receive_buffer"
        /// No connection claimed the datagram.
        case unrouted
        /// A connection refused it: SRTP authentication or replay, malformed, media before keys.
        case connection
    }

    /// A signaling socket opened (after the WebSocket upgrade).
    public func sessionOpened() { sessions.increment() }

    /// A signaling socket ended.
    public func sessionClosed() { sessions.decrement() }

    /// Counts a control-API request by operation (``ControlAPIOperation`` or `unknown`) and HTTP status.
    public func controlAPIRequest(operation: String, status: Int) {
        counter("carillon_control_api_requests_total", [("operation", operation), ("status", String(status))])
            .increment()
    }

    /// Brings the scraped series up to `reading` and renders the whole registry.
    public func render(_ reading: Reading) -> String {
        meetings.set(reading.meetings)
        liveMeetings.set(reading.liveMeetings)
        attendees.set(reading.attendees)
        let (port, media, kernel) = exported.withLockedValue { last in
            // Concurrent scrapes: each adds only what the other has not, and totals never go backwards.
            let port = (
                inDatagrams: Self.delta(&last.port.datagramsReceived, reading.port.datagramsReceived),
                inBytes: Self.delta(&last.port.bytesReceived, reading.port.bytesReceived),
                outDatagrams: Self.delta(&last.port.datagramsSent, reading.port.datagramsSent),
                outBytes: Self.delta(&last.port.bytesSent, reading.port.bytesSent),
                unrouted: Self.delta(&last.port.datagramsUnrouted, reading.port.datagramsUnrouted))
            let media = (
                ticks: Self.delta(&last.media.mixerTicks, reading.media.mixerTicks),
                tickNanoseconds: Self.delta(&last.media.mixerTickNanoseconds, reading.media.mixerTickNanoseconds),
                routed: Self.delta(&last.media.packetsRouted, reading.media.packetsRouted),
                routingNanoseconds: Self.delta(&last.media.routingNanoseconds, reading.media.routingNanoseconds),
                dropped: Self.delta(&last.media.datagramsDroppedByConnections,
                                    reading.media.datagramsDroppedByConnections))
            let kernel = Self.delta(&last.kernelDrops, reading.kernelDrops ?? last.kernelDrops)
            return (port, media, kernel)
        }
        counter("carillon_media_datagrams_total", [("direction", "in")]).increment(by: port.inDatagrams)
        counter("carillon_media_bytes_total", [("direction", "in")]).increment(by: port.inBytes)
        counter("carillon_media_datagrams_total", [("direction", "out")]).increment(by: port.outDatagrams)
        counter("carillon_media_bytes_total", [("direction", "out")]).increment(by: port.outBytes)
        counter("carillon_media_datagrams_dropped_total", [("cause", DropCause.unrouted.rawValue)]).increment(by: port.unrouted)
        counter("carillon_media_datagrams_dropped_total", [("cause", DropCause.connection.rawValue)])
            .increment(by: media.dropped)
        counter("carillon_media_datagrams_dropped_total", [("cause", DropCause.kernelReceiveBuffer.rawValue)])
            .increment(by: kernel)
        counter("carillon_mixer_ticks_total").increment(by: media.ticks)
        floatingCounter("carillon_mixer_tick_seconds_total").increment(by: Double(media.tickNanoseconds) / 1e9)
        counter("carillon_media_packets_routed_total").increment(by: media.routed)
        floatingCounter("carillon_media_routing_seconds_total").increment(by: Double(media.routingNanoseconds) / 1e9)
        CoreMetrics.Gauge(label: "carillon_mixer_tick_max_seconds", factory: factory)
            .record(Double(reading.media.mixerTickMaximumNanoseconds) / 1e9)
        return registry.emitToString()
    }

    /// `text` (Prometheus' text format) with `node="<nodeId>"` added to every sample, so the series of a cluster's
    /// nodes stay apart wherever they are collected. Comment lines (`# HELP`, `# TYPE`) are left as they are.
    public static func labelled(_ text: String, node nodeId: String) -> String {
        let escaped = nodeId.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard !line.isEmpty, !line.hasPrefix("#") else {
                lines.append(line)
                continue
            }
            if let brace = line.firstIndex(of: "{") {
                let after = line.index(after: brace)
                let separator = line[after] == "}" ? "" : ","
                lines.append(line[...brace] + "node=\"\(escaped)\"" + separator + line[after...])
            } else if let space = line.firstIndex(of: " ") {
                lines.append(line[..<space] + "{node=\"\(escaped)\"}" + line[space...])
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The growth of a running total since `last`, moving `last` up to it.
    private static func delta<Value: BinaryInteger>(_ last: inout Value, _ now: Value) -> Int {
        guard now > last else { return 0 }
        defer { last = now }
        return Int(now - last)
    }

    @discardableResult
    private func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
    }

    @discardableResult
    private func floatingCounter(_ label: String) -> CoreMetrics.FloatingPointCounter {
        CoreMetrics.FloatingPointCounter(label: label, dimensions: [], factory: factory)
    }
}
