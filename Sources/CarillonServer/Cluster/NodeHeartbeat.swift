import Foundation
import Logging
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// This node as the cluster sees it: its identity (`--node-id`, `--node-url`, its media address), what it reports
/// once a second (open signaling sessions, the share of its cores busy, whether it still takes new meetings), and, on
/// a single node, the answer to `GET /carillon/nodes` (itself).
///
/// Threading: safe from any thread; counters behind one lock, touched when a session opens or closes and once a
/// second.
final class NodeHeartbeat: ClusterNodeSource {
    private struct State {
        var nodeId: String?
        var url: String?
        var sessions = 0
        var draining = false
        var lastBeat = Date()
        var lastCPU: Double?
        var lastSample: ContinuousClock.Instant?
        var load = 0.0
    }

    let mediaAddress: String
    private let configuredId: String?
    private let configuredURL: String?
    private let rooms: MeetingRooms
    private let state = NIOLockedValueBox(State())

    init(nodeId: String?, url: String?, mediaAddress: String, rooms: MeetingRooms) {
        configuredId = nodeId
        configuredURL = url
        self.mediaAddress = mediaAddress
        self.rooms = rooms
    }

    /// The node's name and URL once its listener is bound: as configured, else `<host name>:<port>` and the
    /// listener's own URL.
    func bound(to address: ServerAddress) {
        let host = ProcessInfo.processInfo.hostName
        state.withLockedValue {
            $0.nodeId = configuredId ?? "\(host):\(address.port)"
            $0.url = configuredURL ?? address.endpoint
        }
    }

    /// The node's id once its listener is bound (``bound(to:)``).
    var nodeId: String? { state.withLockedValue { $0.nodeId } }

    /// A signaling session hosted here opened or closed.
    func sessionOpened() { state.withLockedValue { $0.sessions += 1 } }
    func sessionClosed() { state.withLockedValue { $0.sessions -= 1 } }

    /// The node stops taking new meetings (it was asked to stop).
    func drain() { state.withLockedValue { $0.draining = true } }

    /// This node's heartbeat now (its load measured since the previous one); nil before its listener is bound.
    func beat() -> ClusterHeartbeat? {
        let meetings = rooms.count
        let cpu = Self.processCPUSeconds()
        let now = ContinuousClock.now
        let cores = Double(max(1, ProcessInfo.processInfo.activeProcessorCount))
        return state.withLockedValue { state in
            guard let nodeId = state.nodeId, let url = state.url else { return nil }
            if let lastCPU = state.lastCPU, let lastSample = state.lastSample {
                let wall = (now - lastSample) / .seconds(1)
                if wall > 0 { state.load = max(0, (cpu - lastCPU) / wall / cores) }
            }
            state.lastCPU = cpu
            state.lastSample = now
            state.lastBeat = Date()
            return ClusterHeartbeat(nodeId: nodeId, url: url, mediaAddress: mediaAddress, serving: !state.draining,
                                    meetings: meetings, attendees: state.sessions, load: state.load)
        }
    }

    /// Beats every ``ClusterNode/heartbeatInterval`` until cancelled (measuring the load), into `store` when the node
    /// has one, then runs `afterBeat` (the cluster's fence); a failed write is logged and the next tried (the database
    /// may be away for a moment). Each write gives up after ``ClusterNode/heartbeatTimeout``.
    func run(store: PostgresMeetingStore?, logger: Logger, afterBeat: @Sendable () async -> Void = {}) async {
        var failing = false
        while !Task.isCancelled {
            if let beat = beat(), let store {
                do {
                    try await store.heartbeat(beat, timeout: ClusterNode.heartbeatTimeout)
                    if failing { logger.info("heartbeats reach the database again") }
                    failing = false
                    await afterBeat()
                } catch {
                    if !failing { logger.warning("heartbeat failed: \(error)") }
                    failing = true
                }
            }
            try? await Task.sleep(for: ClusterNode.heartbeatInterval)
        }
    }

    /// A single node's answer to `GET /carillon/nodes`: itself, with the meetings it has live.
    func nodes() async throws -> [ClusterNode] {
        let meetings = rooms.count
        guard let node = state.withLockedValue({ state -> ClusterNode? in
            guard let nodeId = state.nodeId, let url = state.url else { return nil }
            return ClusterNode(nodeId: nodeId, url: url, mediaAddress: mediaAddress,
                               state: state.draining ? .draining : .serving, meetings: meetings,
                               attendees: state.sessions, load: state.load, heartbeatAt: state.lastBeat)
        }) else { return [] }
        return [node]
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
