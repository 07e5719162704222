import Foundation
import PostgresNIO

/// A cluster's nodes and meeting placement in the shared database: heartbeats, which nodes are alive (judged on the
/// database's clock), and where each meeting is hosted, with an epoch that fences a node that comes back after its
/// meetings moved.
extension PostgresMeetingStore {
    /// The advisory lock placement decisions take, so meetings placed at once by several nodes still spread evenly.
    static let placementLock: Int64 = 0x4361_7269_6C6C_6F70

    /// The SQL test of a node row `n` being alive now.
    private var aliveCondition: String {
        "n.heartbeat_at > now() - make_interval(secs => \(Double(nodeDeadAfter.components.seconds) + Double(nodeDeadAfter.components.attoseconds) / 1e18))"
    }

    /// Records a node's heartbeat, registering it the first time, stamped with the database's clock.
    public func heartbeat(_ beat: ClusterHeartbeat) async throws {
        try await client.query("""
            INSERT INTO node (node_id, url, media_address, serving, meetings, attendees, load, heartbeat_at)
            VALUES (\(beat.nodeId), \(beat.url), \(beat.mediaAddress), \(beat.serving), \(Int64(beat.meetings)),
                    \(Int64(beat.attendees)), \(beat.load), now())
            ON CONFLICT (node_id) DO UPDATE SET url = excluded.url, media_address = excluded.media_address,
                serving = excluded.serving, meetings = excluded.meetings, attendees = excluded.attendees,
                load = excluded.load, heartbeat_at = now()
            """, logger: logger)
    }

    /// Every node known, by id, with its state now and what it last reported.
    public func nodes() async throws -> [ClusterNode] {
        let rows = try await client.query("""
            SELECT n.node_id, n.url, n.media_address, n.serving, (\(unescaped: aliveCondition)) AS alive,
                   n.meetings::BIGINT, n.attendees::BIGINT, n.load,
                   n.heartbeat_at
            FROM node n ORDER BY n.node_id
            """, logger: logger)
        var nodes: [ClusterNode] = []
        for try await (id, url, media, serving, alive, meetings, attendees, load, heartbeat)
            in rows.decode((String, String, String, Bool, Bool, Int64, Int64, Double, Date).self) {
            nodes.append(ClusterNode(nodeId: id, url: url, mediaAddress: media,
                                     state: !alive ? .dead : serving ? .serving : .draining, meetings: Int(meetings),
                                     attendees: Int(attendees), load: load, heartbeatAt: heartbeat))
        }
        return nodes
    }

    /// Where a meeting is hosted now, without placing or moving it; nil when it is not placed.
    public func currentHost(meetingId: String) async throws -> MeetingHost? {
        let rows = try await client.query("""
            SELECT p.node_id, p.epoch, COALESCE((SELECT \(unescaped: aliveCondition) FROM node n WHERE n.node_id = p.node_id), false)
            FROM placement p WHERE p.meeting_id = \(meetingId)
            """, logger: logger)
        for try await (node, epoch, alive) in rows.decode((String, Int64, Bool).self) {
            return MeetingHost(nodeId: node, epoch: epoch, alive: alive)
        }
        return nil
    }

    /// The meeting's host: where it is placed while that node is alive; otherwise (not placed yet, or its node dead)
    /// the live serving node with the fewest meetings, then the lowest load, then the smallest id, at the next epoch.
    /// Nil when no node is alive and serving, or the meeting does not exist.
    public func host(meetingId: String) async throws -> MeetingHost? {
        let logger = logger
        let alive = aliveCondition
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.placementLock))", logger: logger)
            var current: MeetingHost?
            for try await (node, epoch, isAlive) in try await connection.query("""
                SELECT p.node_id, p.epoch, COALESCE((SELECT \(unescaped: alive) FROM node n WHERE n.node_id = p.node_id), false)
                FROM placement p WHERE p.meeting_id = \(meetingId)
                """, logger: logger).decode((String, Int64, Bool).self) {
                current = MeetingHost(nodeId: node, epoch: epoch, alive: isAlive)
            }
            if let current, current.alive { return current }
            var chosen: String?
            for try await node in try await connection.query("""
                SELECT n.node_id FROM node n WHERE n.serving AND \(unescaped: alive)
                ORDER BY (SELECT COUNT(*) FROM placement p WHERE p.node_id = n.node_id), n.load, n.node_id LIMIT 1
                """, logger: logger).decode(String.self) {
                chosen = node
            }
            guard let chosen else { return nil }
            let epoch = (current?.epoch ?? 0) + 1
            if current == nil {
                var exists = false
                for try await _ in try await connection.query(
                    "SELECT meeting_id FROM meeting WHERE meeting_id = \(meetingId)", logger: logger).decode(String.self) {
                    exists = true
                }
                guard exists else { return nil }
                try await connection.query(
                    "INSERT INTO placement (meeting_id, node_id, epoch) VALUES (\(meetingId), \(chosen), \(epoch))",
                    logger: logger)
            } else {
                try await connection.query(
                    "UPDATE placement SET node_id = \(chosen), epoch = \(epoch) WHERE meeting_id = \(meetingId)",
                    logger: logger)
            }
            return MeetingHost(nodeId: chosen, epoch: epoch, alive: true)
        }
    }

    /// Whether `nodeId` still hosts the meeting at `epoch`: the fence a node checks before it serves a meeting (a node
    /// that comes back after being declared dead finds its meetings moved and its epoch old).
    public func hosts(meetingId: String, nodeId: String, epoch: Int64) async throws -> Bool {
        guard let current = try await currentHost(meetingId: meetingId) else { return false }
        return current.nodeId == nodeId && current.epoch == epoch
    }
}
