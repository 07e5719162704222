import CarillonProtocol
import Foundation
import Testing

@testable import CarillonServer

/// What only the SQLite store has: its file (reopened, its permissions). The rules every store follows are in
/// ``MeetingStoreConformanceTests``.
@Suite struct SQLiteMeetingStoreTests {
    func meeting(_ id: String = UUID().uuidString.lowercased()) -> MeetingRecord {
        MeetingRecord(meetingId: id, externalMeetingId: "ext", mediaRegion: "us-east-1", meetingHostId: nil,
                      primaryMeetingId: nil, tenantIds: nil, features: .init(attendee: .init(maxCount: 250)),
                      notifications: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    func attendee(_ meetingId: String, _ name: String) -> AttendeeRecord {
        AttendeeRecord(meetingId: meetingId, attendeeId: UUID().uuidString.lowercased(), externalUserId: name,
                       joinToken: "token-\(name)-\(meetingId)", capabilities: .init(audio: "SendReceive", video: "SendReceive", content: "SendReceive"))
    }

    @Test func reopeningTheFileLosesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = meeting()
        let person = attendee(record.meetingId, "alice")
        do {
            let store = try SQLiteMeetingStore(directory: directory)
            try await store.insertMeeting(record, idempotencyKey: IdempotencyKey(accessKeyId: "AK", token: "t1", fingerprint: "f"))
            _ = try await store.insertAttendee(person, limit: 10)
            try await store.setSetting("secret", value: "abc")
            try await store.setTags(meetingId: record.meetingId, tags: [.init(key: "k", value: "v")])
        }
        let reopened = try SQLiteMeetingStore(directory: directory)
        #expect(try await reopened.meeting(id: record.meetingId) == record)
        #expect(try await reopened.attendee(joinToken: person.joinToken)?.attendeeId == person.attendeeId)
        #expect(try await reopened.idempotentMeeting(accessKeyId: "AK", token: "t1")?.meetingId == record.meetingId)
        #expect(try await reopened.setting("secret") == "abc")
        #expect(try await reopened.tags(meetingId: record.meetingId) == [.init(key: "k", value: "v")])
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// The data directory holds join tokens and the join-token secret: made 0700, the database and its WAL files 0600
    /// (they were 0755 and 0644); an existing directory open to others is reported, and a database left 0644 tightened.
    @Test func theDataIsReadableByItsOwnerOnly() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("data")
        let store = try SQLiteMeetingStore(directory: directory)
        try await store.setSetting("secret", value: "abc")
        let database = directory.appendingPathComponent("carillon.sqlite").path
        #expect(try mode(directory.path) == 0o700)
        for path in [database, database + "-wal", database + "-shm"] { #expect(try mode(path) == 0o600, "\(path)") }
        #expect(try DataDirectory.prepare(directory) == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        #expect(try DataDirectory.prepare(directory)?.contains("chmod 700") == true)
        _ = try SQLiteMeetingStore(directory: directory)
        #expect(try mode(database) == 0o600)
    }
}
