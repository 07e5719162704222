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

    /// ``heartbeat(_:)``, given up after `timeout` (``PostgresStoreTimeout``).
    public func heartbeat(_ beat: ClusterHeartbeat, timeout: Duration) async throws {
        try await within(timeout) { try await self.heartbeat(beat) }
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
        try await currentHosts(meetingIds: [meetingId])[meetingId]
    }

    /// The meeting's host: where it is placed while that node is alive and serving; otherwise (not placed yet, its
    /// node dead, or draining) the live serving node with the fewest meetings, then the lowest load, then the smallest
    /// id, at the next epoch. A draining node keeps a meeting no other node can take. Nil when no node is alive and
    /// serving for a meeting not placed, or the meeting does not exist.
    public func host(meetingId: String) async throws -> MeetingHost? {
        let logger = logger
        let alive = aliveCondition
        // Every join asks: a meeting that stays where it is is read without the lock, so joins never queue on it.
        for try await (node, epoch, serving) in try await client.query("""
            SELECT p.node_id, p.epoch, n.serving FROM placement p JOIN node n ON n.node_id = p.node_id
            WHERE p.meeting_id = \(meetingId) AND \(unescaped: alive)
            """, logger: logger).decode((String, Int64, Bool).self) where serving {
            return MeetingHost(nodeId: node, epoch: epoch, alive: true)
        }
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.placementLock))", logger: logger)
            var current: MeetingHost?
            var currentServes = false
            for try await (node, epoch, isAlive, serving) in try await connection.query("""
                SELECT p.node_id, p.epoch,
                       COALESCE((SELECT \(unescaped: alive) FROM node n WHERE n.node_id = p.node_id), false),
                       COALESCE((SELECT n.serving FROM node n WHERE n.node_id = p.node_id), false)
                FROM placement p WHERE p.meeting_id = \(meetingId)
                """, logger: logger).decode((String, Int64, Bool, Bool).self) {
                current = MeetingHost(nodeId: node, epoch: epoch, alive: isAlive)
                currentServes = serving
            }
            // A draining node keeps its meetings only while no other node can take them.
            if let current, current.alive, currentServes { return current }
            var chosen: String?
            for try await node in try await connection.query("""
                SELECT n.node_id FROM node n WHERE n.serving AND \(unescaped: alive)
                ORDER BY (SELECT COUNT(*) FROM placement p WHERE p.node_id = n.node_id), n.load, n.node_id LIMIT 1
                """, logger: logger).decode(String.self) {
                chosen = node
            }
            guard let chosen else { return current?.alive == true ? current : nil }
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

    /// Where each of `meetingIds` is hosted now (meetings not placed, or deleted, are missing).
    public func currentHosts(meetingIds: [String]) async throws -> [String: MeetingHost] {
        guard !meetingIds.isEmpty else { return [:] }
        return try await hostRows(meetingIds)
    }

    /// Where every placed meeting is hosted now.
    public func currentHosts() async throws -> [String: MeetingHost] {
        try await hostRows(nil)
    }

    /// Placements with their nodes' liveness: of `meetingIds`, or all when nil.
    private func hostRows(_ meetingIds: [String]?) async throws -> [String: MeetingHost] {
        let select = """
            SELECT p.meeting_id, p.node_id, p.epoch,
                   COALESCE((SELECT \(aliveCondition) FROM node n WHERE n.node_id = p.node_id), false)
            FROM placement p
            """
        let query: PostgresQuery = meetingIds.map { "\(unescaped: select) WHERE p.meeting_id = ANY(\($0))" }
            ?? "\(unescaped: select)"
        var hosts: [String: MeetingHost] = [:]
        for try await (meeting, node, epoch, alive) in try await client.query(query, logger: logger)
            .decode((String, String, Int64, Bool).self) {
            hosts[meeting] = MeetingHost(nodeId: node, epoch: epoch, alive: alive)
        }
        return hosts
    }

    /// The URL a node's HTTP port is reached at (``ClusterHeartbeat/url``), nil for a node never seen.
    public func nodeURL(_ nodeId: String) async throws -> String? {
        for try await url in try await client.query("SELECT url FROM node WHERE node_id = \(nodeId)", logger: logger)
            .decode(String.self) {
            return url
        }
        return nil
    }

    /// The media address (`host:port`) of each node, by id.
    public func mediaAddresses() async throws -> [String: String] {
        var addresses: [String: String] = [:]
        for try await (node, address) in try await client.query("SELECT node_id, media_address FROM node", logger: logger)
            .decode((String, String).self) {
            addresses[node] = address
        }
        return addresses
    }

    /// Sends `payload` to every session listening on `channel` (``listen(_:handle:)``), this node's too.
    public func notify(_ channel: String, payload: String) async throws {
        try await client.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    /// Listens on `channel` on a connection of its own and hands every notification's payload to `handle`, until the
    /// task is cancelled (returns) or the connection fails (throws).
    public func listen(_ channel: String, handle: @escaping @Sendable (String) async -> Void) async throws {
        let client = client
        try await within(nil) {
            try await client.withConnection { connection in
                try await connection.listen(on: channel) { notifications in
                    for try await notification in notifications { await handle(notification.payload) }
                }
            }
        }
    }
}
