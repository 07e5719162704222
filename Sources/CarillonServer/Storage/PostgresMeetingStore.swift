import CarillonProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// ``MeetingStore`` on PostgreSQL through postgres-nio, for several `carillon serve` nodes sharing one database: the
/// same semantics as ``SQLiteMeetingStore`` (the conformance suite runs both), each rule that reads and then writes
/// (the attendee limit, ExternalUserId reuse, one active pipeline per meeting and the active limit) inside one
/// transaction that first locks what it counts, so two nodes answering at once cannot both pass it.
///
/// The schema is the server's own: ``migrate()`` applies the versions a database lacks, in one transaction under an
/// advisory lock, so nodes starting together apply each version once. The client's connection pool must be running
/// (``run()``, a long-lived task) for any call to proceed. Threading: safe from any task.
public final class PostgresMeetingStore: MeetingStore {
    /// The advisory lock the migrations take (any constant no other user of the database takes).
    static let migrationLock: Int64 = 0x4361_7269_6C6C_6F6E
    /// The advisory lock that serialises counting active pipelines across nodes.
    static let pipelineLimitLock: Int64 = 0x4361_7269_6C6C_6F6F

    let client: PostgresClient
    let logger: Logger
    /// A node without a heartbeat for this long is dead (``ClusterNode/deadAfter``; shorter in tests).
    let nodeDeadAfter: Duration
    /// The pool's task when the store runs it itself (``start()``).
    private let running = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    /// A store on the database `configuration` names; call ``run()`` in a task, then ``migrate()``. A node without a
    /// heartbeat for `nodeDeadAfter` counts as dead.
    public init(configuration: PostgresClient.Configuration, logger: Logger, nodeDeadAfter: Duration = ClusterNode.deadAfter) {
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.nodeDeadAfter = nodeDeadAfter
    }

    /// Runs the connection pool until the task is cancelled.
    public func run() async {
        await client.run()
    }

    /// Runs the connection pool in a task of its own until ``stop()`` (a server whose store outlives any one task).
    public func start() {
        running.withLockedValue { task in
            guard task == nil else { return }
            let client = client
            task = Task { await client.run() }
        }
    }

    /// Stops the pool ``start()`` started; calls in flight fail.
    public func stop() {
        running.withLockedValue { task in
            task?.cancel()
            task = nil
        }
    }

    /// ``migrate()``, failing with ``PostgresStoreTimeout`` when it has not finished within `timeout` (a database
    /// that cannot be reached: the pool keeps trying to connect rather than failing).
    @discardableResult
    public func migrate(timeout: Duration) async throws -> [Int] {
        try await within(timeout) { try await self.migrate() }
    }

    /// Runs `body`, failing with ``PostgresStoreTimeout`` when it has not finished within `timeout` (nil: no limit),
    /// and with `CancellationError` as soon as the calling task is cancelled. Either way `body` is cancelled but not
    /// waited for: a query waiting on a connection to a database that is away may only notice at the pool's own
    /// timeout, and neither a node's heartbeat nor its shutdown may wait that long.
    func within<Value: Sendable>(_ timeout: Duration?, _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let race = WithinRace<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.begin(continuation,
                           work: Task { race.finish(with: await Self.result(of: body)) },
                           timer: Task {
                               guard let timeout else { return }
                               try? await Task.sleep(for: timeout)
                               race.finish(with: .failure(PostgresStoreTimeout(seconds: timeout.components.seconds)))
                           })
            }
        } onCancel: {
            race.finish(with: .failure(CancellationError()))
        }
    }

    private static func result<Value>(of body: @Sendable () async throws -> Value) async -> Result<Value, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// The schema's versions, in order; each a list of statements (the extended protocol runs one at a time).
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE meeting (
                meeting_id TEXT PRIMARY KEY,
                body TEXT NOT NULL,
                seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
            )
            """,
            """
            CREATE TABLE attendee (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                meeting_id TEXT NOT NULL REFERENCES meeting (meeting_id) ON DELETE CASCADE,
                attendee_id TEXT NOT NULL UNIQUE,
                external_user_id TEXT NOT NULL,
                join_token TEXT NOT NULL UNIQUE,
                capabilities TEXT NOT NULL,
                UNIQUE (meeting_id, external_user_id)
            )
            """,
            """
            CREATE TABLE tag (
                meeting_id TEXT NOT NULL REFERENCES meeting (meeting_id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (meeting_id, key)
            )
            """,
            """
            CREATE TABLE idempotency (
                access_key_id TEXT NOT NULL,
                token TEXT NOT NULL,
                meeting_id TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (access_key_id, token)
            )
            """,
            "CREATE INDEX idempotency_created_at ON idempotency (created_at)",
            "CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """
            CREATE TABLE capture_pipeline (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                pipeline_id TEXT NOT NULL UNIQUE,
                meeting_id TEXT NOT NULL,
                status TEXT NOT NULL,
                body TEXT NOT NULL,
                access_key_id TEXT,
                token TEXT,
                fingerprint TEXT,
                UNIQUE (access_key_id, token)
            )
            """,
            "CREATE INDEX capture_pipeline_meeting ON capture_pipeline (meeting_id, status)",
        ]),
        // A cluster's nodes and where each meeting is hosted (`PostgresMeetingStore+Cluster.swift`).
        (2, [
            """
            CREATE TABLE node (
                node_id TEXT PRIMARY KEY,
                url TEXT NOT NULL,
                media_address TEXT NOT NULL,
                serving BOOLEAN NOT NULL,
                meetings INTEGER NOT NULL,
                attendees INTEGER NOT NULL,
                load DOUBLE PRECISION NOT NULL,
                heartbeat_at TIMESTAMPTZ NOT NULL
            )
            """,
            """
            CREATE TABLE placement (
                meeting_id TEXT PRIMARY KEY REFERENCES meeting (meeting_id) ON DELETE CASCADE,
                node_id TEXT NOT NULL,
                epoch BIGINT NOT NULL
            )
            """,
            "CREATE INDEX placement_node ON placement (node_id)",
        ]),
        // A cluster's webhook queue (`PostgresMeetingStore+Webhooks.swift`): the meetings that asked for events (kept
        // past the meeting's deletion until its MeetingEnded is queued), and the events waiting for delivery.
        (3, [
            "CREATE TABLE webhook_subscription (meeting_id TEXT PRIMARY KEY)",
            """
            CREATE TABLE webhook_event (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                meeting_id TEXT NOT NULL,
                body TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                due_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX webhook_event_meeting ON webhook_event (meeting_id, seq)",
        ]),
    ]

    /// Brings the schema to the newest version; safe when several nodes call it at once (the first applies each
    /// version, the others find it applied). Returns the versions it applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS carillon_schema (
                    version INTEGER PRIMARY KEY,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var present: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM carillon_schema", logger: logger)
                .decode(Int.self) {
                present.insert(version)
            }
            var applied: [Int] = []
            for migration in Self.migrations where !present.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO carillon_schema (version) VALUES (\(migration.version))", logger: logger)
                applied.append(migration.version)
            }
            return applied
        }
    }

    // MARK: Reading helpers

    func strings(_ query: PostgresQuery) async throws -> [String] {
        var values: [String] = []
        for try await value in try await client.query(query, logger: logger).decode(String.self) { values.append(value) }
        return values
    }

    private static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func decoded<T: Decodable>(_ type: T.Type, _ body: String) throws -> T {
        try decoder.decode(T.self, from: Data(body.utf8))
    }

    // MARK: Meetings

    /// See ``MeetingStore``.
    public func insertMeeting(_ meeting: MeetingRecord, idempotencyKey: IdempotencyKey?) async throws {
        let body = try Self.encoded(meeting)
        let logger = logger
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("INSERT INTO meeting (meeting_id, body) VALUES (\(meeting.meetingId), \(body))",
                                       logger: logger)
            if let key = idempotencyKey {
                try await connection.query("""
                    INSERT INTO idempotency (access_key_id, token, meeting_id, fingerprint, created_at)
                    VALUES (\(key.accessKeyId), \(key.token), \(meeting.meetingId), \(key.fingerprint),
                            \(meeting.createdAt.timeIntervalSince1970))
                    """, logger: logger)
            }
        }
    }

    /// See ``MeetingStore``.
    public func idempotentMeeting(accessKeyId: String, token: String) async throws -> (meetingId: String, fingerprint: String)? {
        let rows = try await client.query(
            "SELECT meeting_id, fingerprint FROM idempotency WHERE access_key_id = \(accessKeyId) AND token = \(token)",
            logger: logger)
        for try await (meetingId, fingerprint) in rows.decode((String, String).self) { return (meetingId, fingerprint) }
        return nil
    }

    /// See ``MeetingStore``.
    public func expireIdempotencyRecords(createdBefore date: Date) async throws -> Int {
        let rows = try await client.query(
            "WITH gone AS (DELETE FROM idempotency WHERE created_at < \(date.timeIntervalSince1970) RETURNING 1) SELECT COUNT(*)::BIGINT FROM gone",
            logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// See ``MeetingStore``.
    public func meeting(id: String) async throws -> MeetingRecord? {
        try await strings("SELECT body FROM meeting WHERE meeting_id = \(id)").first.map { try Self.decoded(MeetingRecord.self, $0) }
    }

    /// See ``MeetingStore``.
    public func meetings() async throws -> [MeetingRecord] {
        try await strings("SELECT body FROM meeting ORDER BY seq").map { try Self.decoded(MeetingRecord.self, $0) }
    }

    /// See ``MeetingStore``.
    public func meetings(after sequence: Int64, limit: Int) async throws -> [(record: MeetingRecord, sequence: Int64)] {
        let rows = try await client.query(
            "SELECT body, seq FROM meeting WHERE seq > \(sequence) ORDER BY seq LIMIT \(Int64(limit))", logger: logger)
        var page: [(record: MeetingRecord, sequence: Int64)] = []
        for try await (body, seq) in rows.decode((String, Int64).self) { page.append((try Self.decoded(MeetingRecord.self, body), seq)) }
        return page
    }

    /// See ``MeetingStore``.
    public func counts() async throws -> (meetings: Int, attendees: Int) {
        let rows = try await client.query(
            "SELECT (SELECT COUNT(*) FROM meeting)::BIGINT, (SELECT COUNT(*) FROM attendee)::BIGINT", logger: logger)
        for try await (meetings, attendees) in rows.decode((Int64, Int64).self) { return (Int(meetings), Int(attendees)) }
        return (0, 0)
    }

    /// See ``MeetingStore``.
    public func deleteMeeting(id: String) async throws -> Bool {
        // Attendees and tags go with it (ON DELETE CASCADE).
        let rows = try await client.query("DELETE FROM meeting WHERE meeting_id = \(id) RETURNING meeting_id", logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    // MARK: Attendees

    private typealias AttendeeRow = (String, String, String, String, String, Int64)
    private static let attendeeColumns = "meeting_id, attendee_id, external_user_id, join_token, capabilities, seq"

    private static func attendee(_ row: AttendeeRow) throws -> AttendeeRecord {
        AttendeeRecord(meetingId: row.0, attendeeId: row.1, externalUserId: row.2, joinToken: row.3,
                       capabilities: try decoded(ControlAPI.AttendeeCapabilities.self, row.4), sequence: row.5)
    }

    private static func attendees(_ rows: PostgresRowSequence) async throws -> [AttendeeRecord] {
        var records: [AttendeeRecord] = []
        for try await row in rows.decode(AttendeeRow.self) { records.append(try attendee(row)) }
        return records
    }

    /// See ``MeetingStore``.
    public func insertAttendee(_ attendee: AttendeeRecord, limit: Int) async throws -> AttendeeInsertion {
        let capabilities = try Self.encoded(attendee.capabilities)
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            // The meeting's row is the lock every insertion into it takes first: the count cannot change under it.
            let meeting = try await connection.query(
                "SELECT meeting_id FROM meeting WHERE meeting_id = \(attendee.meetingId) FOR UPDATE", logger: logger)
            var found = false
            for try await _ in meeting.decode(String.self) { found = true }
            guard found else { return .meetingNotFound }
            let existing = try await Self.attendees(try await connection.query(
                "SELECT \(unescaped: Self.attendeeColumns) FROM attendee WHERE meeting_id = \(attendee.meetingId) AND external_user_id = \(attendee.externalUserId)",
                logger: logger))
            if let existing = existing.first { return .existing(existing) }
            var count: Int64 = 0
            for try await value in try await connection.query(
                "SELECT COUNT(*)::BIGINT FROM attendee WHERE meeting_id = \(attendee.meetingId)", logger: logger).decode(Int64.self) {
                count = value
            }
            guard count < limit else { return .limitExceeded(limit: limit) }
            var stored = attendee
            for try await seq in try await connection.query("""
                INSERT INTO attendee (meeting_id, attendee_id, external_user_id, join_token, capabilities)
                VALUES (\(attendee.meetingId), \(attendee.attendeeId), \(attendee.externalUserId), \(attendee.joinToken),
                        \(capabilities))
                RETURNING seq
                """, logger: logger).decode(Int64.self) {
                stored.sequence = seq
            }
            return .created(stored)
        }
    }

    /// See ``MeetingStore``.
    public func attendee(meetingId: String, attendeeId: String) async throws -> AttendeeRecord? {
        try await Self.attendees(try await client.query(
            "SELECT \(unescaped: Self.attendeeColumns) FROM attendee WHERE meeting_id = \(meetingId) AND attendee_id = \(attendeeId)",
            logger: logger)).first
    }

    /// See ``MeetingStore``.
    public func attendee(joinToken: String) async throws -> AttendeeRecord? {
        try await Self.attendees(try await client.query(
            "SELECT \(unescaped: Self.attendeeColumns) FROM attendee WHERE join_token = \(joinToken)", logger: logger)).first
    }

    /// See ``MeetingStore``.
    public func attendees(meetingId: String, after sequence: Int64, limit: Int) async throws -> [AttendeeRecord] {
        try await Self.attendees(try await client.query(
            "SELECT \(unescaped: Self.attendeeColumns) FROM attendee WHERE meeting_id = \(meetingId) AND seq > \(sequence) ORDER BY seq LIMIT \(Int64(limit))",
            logger: logger))
    }

    /// See ``MeetingStore``.
    public func deleteAttendee(meetingId: String, attendeeId: String) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM attendee WHERE meeting_id = \(meetingId) AND attendee_id = \(attendeeId) RETURNING attendee_id",
            logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    /// See ``MeetingStore``.
    public func updateCapabilities(meetingId: String, attendeeIds: [String]?, excluding: Set<String>,
                                   capabilities: ControlAPI.AttendeeCapabilities) async throws -> [AttendeeRecord] {
        let encoded = try Self.encoded(capabilities)
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await Self.attendees(try await connection.query(
                "SELECT \(unescaped: Self.attendeeColumns) FROM attendee WHERE meeting_id = \(meetingId) ORDER BY seq FOR UPDATE",
                logger: logger))
            var updated: [AttendeeRecord] = []
            for var record in rows {
                if let attendeeIds, !attendeeIds.contains(record.attendeeId) { continue }
                if excluding.contains(record.attendeeId) { continue }
                try await connection.query(
                    "UPDATE attendee SET capabilities = \(encoded) WHERE attendee_id = \(record.attendeeId)", logger: logger)
                record.capabilities = capabilities
                updated.append(record)
            }
            return updated
        }
    }

    // MARK: Tags and settings

    /// See ``MeetingStore``.
    public func tags(meetingId: String) async throws -> [ControlAPI.Tag] {
        let rows = try await client.query("SELECT key, value FROM tag WHERE meeting_id = \(meetingId) ORDER BY key", logger: logger)
        var tags: [ControlAPI.Tag] = []
        for try await (key, value) in rows.decode((String, String).self) { tags.append(ControlAPI.Tag(key: key, value: value)) }
        return tags
    }

    /// See ``MeetingStore``.
    public func setTags(meetingId: String, tags: [ControlAPI.Tag]) async throws {
        let logger = logger
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("DELETE FROM tag WHERE meeting_id = \(meetingId)", logger: logger)
            for tag in tags {
                try await connection.query(
                    "INSERT INTO tag (meeting_id, key, value) VALUES (\(meetingId), \(tag.key ?? ""), \(tag.value ?? ""))",
                    logger: logger)
            }
        }
    }

    /// See ``MeetingStore``.
    public func setting(_ key: String) async throws -> String? {
        try await strings("SELECT value FROM setting WHERE key = \(key)").first
    }

    /// See ``MeetingStore``.
    public func setting(_ key: String, orInsert value: String) async throws -> String {
        // The INSERT returns nothing when the key exists; the SELECT then sees the row that won.
        let inserted = try await strings(
            "INSERT INTO setting (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING RETURNING value")
        if let inserted = inserted.first { return inserted }
        return try await strings("SELECT value FROM setting WHERE key = \(key)").first ?? value
    }

    /// See ``MeetingStore``.
    public func setSetting(_ key: String, value: String) async throws {
        try await client.query(
            "INSERT INTO setting (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            logger: logger)
    }

    // MARK: Media capture pipelines

    /// See ``MeetingStore``.
    public func insertCapturePipeline(_ pipeline: MediaCapturePipelineRecord, idempotencyKey: IdempotencyKey?,
                                      activeLimit: Int) async throws -> MediaCapturePipelineInsertion {
        let body = try Self.encoded(pipeline)
        let (initializing, inProgress) = (MediaCapturePipelineStatus.initializing.rawValue, MediaCapturePipelineStatus.inProgress.rawValue)
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            // Counting the active pipelines and adding one is done by one node at a time.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.pipelineLimitLock))", logger: logger)
            if let key = idempotencyKey {
                for try await (earlier, fingerprint) in try await connection.query(
                    "SELECT body, fingerprint FROM capture_pipeline WHERE access_key_id = \(key.accessKeyId) AND token = \(key.token)",
                    logger: logger).decode((String, String?).self) {
                    guard fingerprint == key.fingerprint else { return .tokenReused }
                    return .repeated(try Self.decoded(MediaCapturePipelineRecord.self, earlier))
                }
            }
            for try await busy in try await connection.query(
                "SELECT pipeline_id FROM capture_pipeline WHERE meeting_id = \(pipeline.meetingId) AND status IN (\(initializing), \(inProgress))",
                logger: logger).decode(String.self) {
                return .meetingAlreadyCaptured(pipelineId: busy)
            }
            var count: Int64 = 0
            for try await value in try await connection.query(
                "SELECT COUNT(*)::BIGINT FROM capture_pipeline WHERE status IN (\(initializing), \(inProgress))",
                logger: logger).decode(Int64.self) {
                count = value
            }
            guard count < activeLimit else { return .limitExceeded(limit: activeLimit) }
            try await connection.query("""
                INSERT INTO capture_pipeline (pipeline_id, meeting_id, status, body, access_key_id, token, fingerprint)
                VALUES (\(pipeline.pipelineId), \(pipeline.meetingId), \(pipeline.status.rawValue), \(body),
                        \(idempotencyKey?.accessKeyId), \(idempotencyKey?.token), \(idempotencyKey?.fingerprint))
                """, logger: logger)
            return .created(pipeline)
        }
    }

    /// See ``MeetingStore``.
    public func capturePipeline(id: String) async throws -> MediaCapturePipelineRecord? {
        try await strings("SELECT body FROM capture_pipeline WHERE pipeline_id = \(id)").first
            .map { try Self.decoded(MediaCapturePipelineRecord.self, $0) }
    }

    /// See ``MeetingStore``.
    public func capturePipelines(after sequence: Int64, limit: Int) async throws
        -> [(record: MediaCapturePipelineRecord, sequence: Int64)] {
        let rows = try await client.query(
            "SELECT body, seq FROM capture_pipeline WHERE seq > \(sequence) ORDER BY seq LIMIT \(Int64(limit))", logger: logger)
        var page: [(record: MediaCapturePipelineRecord, sequence: Int64)] = []
        for try await (body, seq) in rows.decode((String, Int64).self) {
            page.append((try Self.decoded(MediaCapturePipelineRecord.self, body), seq))
        }
        return page
    }

    /// See ``MeetingStore``.
    public func unfinishedCapturePipelines() async throws -> [MediaCapturePipelineRecord] {
        let statuses = [MediaCapturePipelineStatus.initializing, .inProgress, .stopping].map(\.rawValue)
        return try await strings(
            "SELECT body FROM capture_pipeline WHERE status IN (\(statuses[0]), \(statuses[1]), \(statuses[2])) ORDER BY seq")
            .map { try Self.decoded(MediaCapturePipelineRecord.self, $0) }
    }

    /// See ``MeetingStore``.
    public func updateCapturePipeline(id: String, status: MediaCapturePipelineStatus,
                                      from: Set<MediaCapturePipelineStatus>, at date: Date) async throws
        -> MediaCapturePipelineRecord? {
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            var body: String?
            for try await value in try await connection.query(
                "SELECT body FROM capture_pipeline WHERE pipeline_id = \(id) FOR UPDATE", logger: logger).decode(String.self) {
                body = value
            }
            guard let body else { return nil }
            var pipeline = try Self.decoded(MediaCapturePipelineRecord.self, body)
            guard from.contains(pipeline.status) else { return pipeline }
            pipeline.status = status
            pipeline.updatedAt = date
            let updated = try Self.encoded(pipeline)
            try await connection.query(
                "UPDATE capture_pipeline SET status = \(status.rawValue), body = \(updated) WHERE pipeline_id = \(id)",
                logger: logger)
            return pipeline
        }
    }
}
