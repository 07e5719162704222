import CarillonProtocol
import Foundation
import GRDB

/// ``MeetingStore`` on SQLite through GRDB: `<data directory>/carillon.sqlite` in WAL mode, or in memory for tests.
///
/// Threading: safe from any task; GRDB serialises writes and runs reads concurrently.
public final class SQLiteMeetingStore: MeetingStore {
    private let writer: any DatabaseWriter
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    /// Opens (creating and migrating if needed) the database file in `directory`; the database and its WAL files are
    /// readable by their owner only (they hold join tokens and the join-token secret).
    public convenience init(directory: URL) throws {
        _ = try DataDirectory.prepare(directory)
        let path = directory.appendingPathComponent("carillon.sqlite").path
        // SQLite gives its -wal and -shm files the database file's permissions.
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        try DataDirectory.restrict([path, path + "-wal", path + "-shm"])
        let pool = try DatabasePool(path: path)
        try self.init(writer: pool)
    }

    /// An empty store that lives in memory only.
    public static func inMemory() throws -> SQLiteMeetingStore {
        try SQLiteMeetingStore(writer: DatabaseQueue())
    }

    private init(writer: any DatabaseWriter) throws {
        self.writer = writer
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meeting (
                    meetingId TEXT PRIMARY KEY NOT NULL,
                    body TEXT NOT NULL,
                    seq INTEGER NOT NULL
                );
                CREATE TABLE attendee (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    meetingId TEXT NOT NULL REFERENCES meeting(meetingId) ON DELETE CASCADE,
                    attendeeId TEXT NOT NULL UNIQUE,
                    externalUserId TEXT NOT NULL,
                    joinToken TEXT NOT NULL UNIQUE,
                    capabilities TEXT NOT NULL,
                    UNIQUE (meetingId, externalUserId)
                );
                CREATE TABLE tag (
                    meetingId TEXT NOT NULL REFERENCES meeting(meetingId) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (meetingId, key)
                );
                CREATE TABLE idempotency (
                    accessKeyId TEXT NOT NULL,
                    token TEXT NOT NULL,
                    meetingId TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    PRIMARY KEY (accessKeyId, token)
                );
                CREATE TABLE setting (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                """)
        }
        // Idempotency records carry their meeting's creation time so they can expire (they were kept forever).
        migrator.registerMigration("v2-idempotency-expiry") { db in
            try db.execute(sql: """
                ALTER TABLE idempotency ADD COLUMN createdAt REAL NOT NULL DEFAULT 0;
                UPDATE idempotency SET createdAt = CAST(strftime('%s', 'now') AS REAL);
                CREATE INDEX idempotency_createdAt ON idempotency (createdAt);
                """)
        }
        // Media capture pipelines outlive their meeting (a stopped one stays listed), so no foreign key.
        migrator.registerMigration("v3-capture-pipelines") { db in
            try db.execute(sql: """
                CREATE TABLE capture_pipeline (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    pipelineId TEXT NOT NULL UNIQUE,
                    meetingId TEXT NOT NULL,
                    status TEXT NOT NULL,
                    body TEXT NOT NULL,
                    accessKeyId TEXT,
                    token TEXT,
                    fingerprint TEXT,
                    UNIQUE (accessKeyId, token)
                );
                CREATE INDEX capture_pipeline_meeting ON capture_pipeline (meetingId, status);
                """)
        }
        try migrator.migrate(writer)
    }

    // MARK: Meetings

    /// See ``MeetingStore``.
    public func insertMeeting(_ meeting: MeetingRecord, idempotencyKey: IdempotencyKey?) async throws {
        let body = String(decoding: try Self.encoder.encode(meeting), as: UTF8.self)
        try await writer.write { db in
            let seq = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) + 1 FROM meeting") ?? 1
            try db.execute(sql: "INSERT INTO meeting (meetingId, body, seq) VALUES (?, ?, ?)",
                           arguments: [meeting.meetingId, body, seq])
            if let key = idempotencyKey {
                try db.execute(
                    sql: """
                        INSERT INTO idempotency (accessKeyId, token, meetingId, fingerprint, createdAt)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [key.accessKeyId, key.token, meeting.meetingId, key.fingerprint,
                                meeting.createdAt.timeIntervalSince1970]
                )
            }
        }
    }

    /// See ``MeetingStore``.
    public func idempotentMeeting(accessKeyId: String, token: String) async throws -> (meetingId: String, fingerprint: String)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT meetingId, fingerprint FROM idempotency WHERE accessKeyId = ? AND token = ?",
                             arguments: [accessKeyId, token])
                .map { ($0["meetingId"], $0["fingerprint"]) }
        }
    }

    /// See ``MeetingStore``.
    public func expireIdempotencyRecords(createdBefore date: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM idempotency WHERE createdAt < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// See ``MeetingStore``.
    public func meeting(id: String) async throws -> MeetingRecord? {
        let body = try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM meeting WHERE meetingId = ?", arguments: [id])
        }
        return try body.map { try Self.decoder.decode(MeetingRecord.self, from: Data($0.utf8)) }
    }

    /// See ``MeetingStore``.
    public func meetings() async throws -> [MeetingRecord] {
        let bodies = try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM meeting ORDER BY seq")
        }
        return try bodies.map { try Self.decoder.decode(MeetingRecord.self, from: Data($0.utf8)) }
    }

    /// See ``MeetingStore``.
    public func meetings(after sequence: Int64, limit: Int) async throws -> [(record: MeetingRecord, sequence: Int64)] {
        let rows = try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT body, seq FROM meeting WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [sequence, limit])
                .map { (body: $0["body"] as String, sequence: $0["seq"] as Int64) }
        }
        return try rows.map { (try Self.decoder.decode(MeetingRecord.self, from: Data($0.body.utf8)), $0.sequence) }
    }

    /// How many meetings and attendees the store holds (for metrics and readiness; two `COUNT(*)` queries).
    public func counts() async throws -> (meetings: Int, attendees: Int) {
        try await writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM meeting") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attendee") ?? 0)
        }
    }

    /// See ``MeetingStore``.
    public func deleteMeeting(id: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM attendee WHERE meetingId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM tag WHERE meetingId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM meeting WHERE meetingId = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Attendees

    /// See ``MeetingStore``.
    public func insertAttendee(_ attendee: AttendeeRecord, limit: Int) async throws -> AttendeeInsertion {
        let capabilities = String(decoding: try Self.encoder.encode(attendee.capabilities), as: UTF8.self)
        return try await writer.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM meeting WHERE meetingId = ?", arguments: [attendee.meetingId]) != nil
            else { return .meetingNotFound }
            if let existing = try Row.fetchOne(
                db, sql: "SELECT * FROM attendee WHERE meetingId = ? AND externalUserId = ?",
                arguments: [attendee.meetingId, attendee.externalUserId]
            ) {
                return .existing(try Self.attendee(existing))
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attendee WHERE meetingId = ?",
                                         arguments: [attendee.meetingId]) ?? 0
            guard count < limit else { return .limitExceeded(limit: limit) }
            try db.execute(
                sql: """
                    INSERT INTO attendee (meetingId, attendeeId, externalUserId, joinToken, capabilities)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [attendee.meetingId, attendee.attendeeId, attendee.externalUserId, attendee.joinToken, capabilities]
            )
            var stored = attendee
            stored.sequence = db.lastInsertedRowID
            return .created(stored)
        }
    }

    /// See ``MeetingStore``.
    public func attendee(meetingId: String, attendeeId: String) async throws -> AttendeeRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM attendee WHERE meetingId = ? AND attendeeId = ?",
                             arguments: [meetingId, attendeeId]).map(Self.attendee)
        }
    }

    /// See ``MeetingStore``.
    public func attendee(joinToken: String) async throws -> AttendeeRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM attendee WHERE joinToken = ?", arguments: [joinToken]).map(Self.attendee)
        }
    }

    /// See ``MeetingStore``.
    public func attendees(meetingId: String, after sequence: Int64, limit: Int) async throws -> [AttendeeRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM attendee WHERE meetingId = ? AND seq > ? ORDER BY seq LIMIT ?",
                             arguments: [meetingId, sequence, limit]).map(Self.attendee)
        }
    }

    /// See ``MeetingStore``.
    public func deleteAttendee(meetingId: String, attendeeId: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM attendee WHERE meetingId = ? AND attendeeId = ?", arguments: [meetingId, attendeeId])
            return db.changesCount > 0
        }
    }

    /// See ``MeetingStore``.
    public func updateCapabilities(
        meetingId: String,
        attendeeIds: [String]?,
        excluding: Set<String>,
        capabilities: ControlAPI.AttendeeCapabilities
    ) async throws -> [AttendeeRecord] {
        let encoded = String(decoding: try Self.encoder.encode(capabilities), as: UTF8.self)
        return try await writer.write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM attendee WHERE meetingId = ? ORDER BY seq", arguments: [meetingId])
            var updated: [AttendeeRecord] = []
            for row in rows {
                var record = try Self.attendee(row)
                if let attendeeIds, !attendeeIds.contains(record.attendeeId) { continue }
                if excluding.contains(record.attendeeId) { continue }
                try db.execute(sql: "UPDATE attendee SET capabilities = ? WHERE attendeeId = ?",
                               arguments: [encoded, record.attendeeId])
                record.capabilities = capabilities
                updated.append(record)
            }
            return updated
        }
    }

    // MARK: Tags and settings

    /// See ``MeetingStore``.
    public func tags(meetingId: String) async throws -> [ControlAPI.Tag] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM tag WHERE meetingId = ? ORDER BY key", arguments: [meetingId])
                .map { ControlAPI.Tag(key: $0["key"], value: $0["value"]) }
        }
    }

    /// See ``MeetingStore``.
    public func setTags(meetingId: String, tags: [ControlAPI.Tag]) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM tag WHERE meetingId = ?", arguments: [meetingId])
            for tag in tags {
                try db.execute(sql: "INSERT INTO tag (meetingId, key, value) VALUES (?, ?, ?)",
                               arguments: [meetingId, tag.key ?? "", tag.value ?? ""])
            }
        }
    }

    /// See ``MeetingStore``.
    public func setting(_ key: String) async throws -> String? {
        try await writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    /// See ``MeetingStore``.
    public func setting(_ key: String, orInsert value: String) async throws -> String {
        try await writer.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING",
                           arguments: [key, value])
            return try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) ?? value
        }
    }

    /// See ``MeetingStore``.
    public func setSetting(_ key: String, value: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    private static func attendee(_ row: Row) throws -> AttendeeRecord {
        AttendeeRecord(
            meetingId: row["meetingId"],
            attendeeId: row["attendeeId"],
            externalUserId: row["externalUserId"],
            joinToken: row["joinToken"],
            capabilities: try decoder.decode(ControlAPI.AttendeeCapabilities.self, from: Data((row["capabilities"] as String).utf8)),
            sequence: row["seq"]
        )
    }

    // MARK: Media capture pipelines

    /// See ``MeetingStore``.
    public func insertCapturePipeline(_ pipeline: MediaCapturePipelineRecord, idempotencyKey: IdempotencyKey?,
                                      activeLimit: Int) async throws -> MediaCapturePipelineInsertion {
        let body = String(decoding: try Self.encoder.encode(pipeline), as: UTF8.self)
        let active = MediaCapturePipelineStatus.allCases.filter(\.isActive).map(\.rawValue)
        return try await writer.write { db in
            if let key = idempotencyKey,
               let row = try Row.fetchOne(db, sql: "SELECT body, fingerprint FROM capture_pipeline WHERE accessKeyId = ? AND token = ?",
                                          arguments: [key.accessKeyId, key.token]) {
                guard row["fingerprint"] as String? == key.fingerprint else { return .tokenReused }
                return .repeated(try Self.pipeline(row["body"]))
            }
            if let busy = try String.fetchOne(
                db, sql: "SELECT pipelineId FROM capture_pipeline WHERE meetingId = ? AND status IN (?, ?)",
                arguments: [pipeline.meetingId, active[0], active[1]]) {
                return .meetingAlreadyCaptured(pipelineId: busy)
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM capture_pipeline WHERE status IN (?, ?)",
                                         arguments: [active[0], active[1]]) ?? 0
            guard count < activeLimit else { return .limitExceeded(limit: activeLimit) }
            try db.execute(
                sql: """
                    INSERT INTO capture_pipeline (pipelineId, meetingId, status, body, accessKeyId, token, fingerprint)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [pipeline.pipelineId, pipeline.meetingId, pipeline.status.rawValue, body,
                            idempotencyKey?.accessKeyId, idempotencyKey?.token, idempotencyKey?.fingerprint])
            return .created(pipeline)
        }
    }

    /// See ``MeetingStore``.
    public func capturePipeline(id: String) async throws -> MediaCapturePipelineRecord? {
        let body = try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM capture_pipeline WHERE pipelineId = ?", arguments: [id])
        }
        return try body.map(Self.pipeline)
    }

    /// See ``MeetingStore``.
    public func capturePipelines(after sequence: Int64, limit: Int) async throws
        -> [(record: MediaCapturePipelineRecord, sequence: Int64)] {
        let rows = try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT body, seq FROM capture_pipeline WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [sequence, limit])
                .map { (body: $0["body"] as String, sequence: $0["seq"] as Int64) }
        }
        return try rows.map { (try Self.pipeline($0.body), $0.sequence) }
    }

    /// See ``MeetingStore``.
    public func unfinishedCapturePipelines() async throws -> [MediaCapturePipelineRecord] {
        let bodies = try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM capture_pipeline WHERE status IN (?, ?, ?) ORDER BY seq",
                                arguments: [MediaCapturePipelineStatus.initializing.rawValue,
                                            MediaCapturePipelineStatus.inProgress.rawValue,
                                            MediaCapturePipelineStatus.stopping.rawValue])
        }
        return try bodies.map(Self.pipeline)
    }

    /// See ``MeetingStore``.
    public func updateCapturePipeline(id: String, status: MediaCapturePipelineStatus,
                                      from: Set<MediaCapturePipelineStatus>, at date: Date) async throws
        -> MediaCapturePipelineRecord? {
        try await writer.write { db in
            guard let body = try String.fetchOne(db, sql: "SELECT body FROM capture_pipeline WHERE pipelineId = ?",
                                                 arguments: [id]) else { return nil }
            var pipeline = try Self.pipeline(body)
            guard from.contains(pipeline.status) else { return pipeline }
            pipeline.status = status
            pipeline.updatedAt = date
            let updated = String(decoding: try Self.encoder.encode(pipeline), as: UTF8.self)
            try db.execute(sql: "UPDATE capture_pipeline SET status = ?, body = ? WHERE pipelineId = ?",
                           arguments: [status.rawValue, updated, id])
            return pipeline
        }
    }

    private static func pipeline(_ body: String) throws -> MediaCapturePipelineRecord {
        try decoder.decode(MediaCapturePipelineRecord.self, from: Data(body.utf8))
    }
}
