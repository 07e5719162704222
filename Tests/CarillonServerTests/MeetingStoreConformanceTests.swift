import CarillonProtocol
import Foundation
import Testing

@testable import CarillonServer

/// What every ``MeetingStore`` must do, run against each: SQLite (in memory) and PostgreSQL (the tests' own server, a
/// database per test). A cluster's nodes share the second, so the rules that read before they write are also checked
/// under concurrent callers.
@Suite struct MeetingStoreConformanceTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgresql
        var testDescription: String { rawValue }
    }

    static func withStore(_ kind: Kind, _ body: @Sendable (any MeetingStore) async throws -> Void) async throws {
        switch kind {
        case .sqlite: try await body(try SQLiteMeetingStore.inMemory())
        case .postgresql: try await TestPostgreSQL.withStore { try await body($0) }
        }
    }

    static func meeting(_ id: String = UUID().uuidString.lowercased(), created: TimeInterval = 1_700_000_000) -> MeetingRecord {
        MeetingRecord(meetingId: id, externalMeetingId: "ext", mediaRegion: "us-east-1", meetingHostId: nil,
                      primaryMeetingId: nil, tenantIds: nil, features: .init(attendee: .init(maxCount: 250)),
                      notifications: nil, createdAt: Date(timeIntervalSince1970: created))
    }

    static func attendee(_ meetingId: String, _ name: String) -> AttendeeRecord {
        AttendeeRecord(meetingId: meetingId, attendeeId: UUID().uuidString.lowercased(), externalUserId: name,
                       joinToken: "token-\(name)-\(meetingId)",
                       capabilities: .init(audio: "SendReceive", video: "SendReceive", content: "SendReceive"))
    }

    static func pipeline(_ meetingId: String) -> MediaCapturePipelineRecord {
        MediaCapturePipelineRecord(pipelineId: UUID().uuidString.lowercased(), meetingId: meetingId,
                                   sourceArn: "arn:aws:chime::1:meeting:\(meetingId)", sinkArn: "arn:aws:s3:::bucket",
                                   configuration: nil, status: .initializing, createdAt: Date(timeIntervalSince1970: 1),
                                   updatedAt: Date(timeIntervalSince1970: 1))
    }

    @Test(arguments: Kind.allCases)
    func meetingsRoundTripAndPageInCreationOrder(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let records = (0..<5).map { _ in Self.meeting() }
            for record in records { try await store.insertMeeting(record, idempotencyKey: nil) }
            #expect(try await store.meeting(id: records[2].meetingId) == records[2])
            #expect(try await store.meeting(id: "missing") == nil)
            #expect(try await store.meetings() == records)
            let first = try await store.meetings(after: 0, limit: 2)
            #expect(first.map(\.record) == Array(records[0..<2]))
            let rest = try await store.meetings(after: first[1].sequence, limit: 10)
            #expect(rest.map(\.record) == Array(records[2...]))
        }
    }

    /// Idempotency records expire by their meeting's creation time, whether or not the meeting still exists.
    @Test(arguments: Kind.allCases)
    func idempotencyRecordsExpireByTheirMeetingsAge(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let old = Self.meeting(created: 1_000), recent = Self.meeting(created: 2_000)
            try await store.insertMeeting(old, idempotencyKey: IdempotencyKey(accessKeyId: "AK", token: "old", fingerprint: "f"))
            try await store.insertMeeting(recent, idempotencyKey: IdempotencyKey(accessKeyId: "AK", token: "new", fingerprint: "g"))
            #expect(try await store.idempotentMeeting(accessKeyId: "AK", token: "new")?.fingerprint == "g")
            #expect(try await store.expireIdempotencyRecords(createdBefore: Date(timeIntervalSince1970: 1_000)) == 0)
            #expect(try await store.expireIdempotencyRecords(createdBefore: Date(timeIntervalSince1970: 1_500)) == 1)
            #expect(try await store.idempotentMeeting(accessKeyId: "AK", token: "old") == nil)
            #expect(try await store.idempotentMeeting(accessKeyId: "AK", token: "new")?.meetingId == recent.meetingId)
            #expect(try await store.meeting(id: old.meetingId) == old, "the meeting itself is not touched")
        }
    }

    @Test(arguments: Kind.allCases)
    func attendeeInsertionRules(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let record = Self.meeting()
            try await store.insertMeeting(record, idempotencyKey: nil)
            guard case .created(let alice) = try await store.insertAttendee(Self.attendee(record.meetingId, "alice"), limit: 2) else {
                Issue.record("alice should be created")
                return
            }
            #expect(alice.sequence > 0)
            #expect(try await store.insertAttendee(Self.attendee(record.meetingId, "alice"), limit: 2) == .existing(alice))
            guard case .created(let bob) = try await store.insertAttendee(Self.attendee(record.meetingId, "bob"), limit: 2) else {
                Issue.record("bob should be created")
                return
            }
            #expect(try await store.insertAttendee(Self.attendee(record.meetingId, "carol"), limit: 2) == .limitExceeded(limit: 2))
            #expect(try await store.insertAttendee(Self.attendee("missing", "dave"), limit: 2) == .meetingNotFound)
            #expect(try await store.attendee(meetingId: record.meetingId, attendeeId: bob.attendeeId) == bob)
            #expect(try await store.attendee(joinToken: alice.joinToken) == alice)
            #expect(try await store.attendees(meetingId: record.meetingId, after: 0, limit: 10) == [alice, bob])
            #expect(try await store.attendees(meetingId: record.meetingId, after: alice.sequence, limit: 10) == [bob])
            #expect(try await store.deleteAttendee(meetingId: record.meetingId, attendeeId: alice.attendeeId))
            #expect(try await store.deleteAttendee(meetingId: record.meetingId, attendeeId: alice.attendeeId) == false)
            #expect(try await store.attendee(joinToken: alice.joinToken) == nil)
        }
    }

    /// Twenty callers add twenty attendees to a meeting of five at once (as several nodes would): exactly five are
    /// created, and one ExternalUserId added by ten callers at once exists once.
    @Test(arguments: Kind.allCases)
    func theAttendeeLimitAndExternalUserIdsHoldUnderConcurrentCallers(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let record = Self.meeting()
            try await store.insertMeeting(record, idempotencyKey: nil)
            let outcomes = try await withThrowingTaskGroup(of: AttendeeInsertion.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.insertAttendee(Self.attendee(record.meetingId, "person-\(index)"), limit: 5) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .created = $0 { true } else { false } }.count == 5)
            #expect(outcomes.filter { $0 == .limitExceeded(limit: 5) }.count == 15)

            let other = Self.meeting()
            try await store.insertMeeting(other, idempotencyKey: nil)
            let same = try await withThrowingTaskGroup(of: AttendeeInsertion.self) { group in
                for _ in 0..<10 { group.addTask { try await store.insertAttendee(Self.attendee(other.meetingId, "dora"), limit: 50) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(same.filter { if case .created = $0 { true } else { false } }.count == 1)
            #expect(try await store.attendees(meetingId: other.meetingId, after: 0, limit: 50).count == 1)
        }
    }

    @Test(arguments: Kind.allCases)
    func capabilitiesAreReplacedForTheNamedOrAllButTheExcluded(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let record = Self.meeting()
            try await store.insertMeeting(record, idempotencyKey: nil)
            var people: [AttendeeRecord] = []
            for name in ["ann", "ben", "cid"] {
                if case .created(let person) = try await store.insertAttendee(Self.attendee(record.meetingId, name), limit: 9) {
                    people.append(person)
                }
            }
            let receive = ControlAPI.AttendeeCapabilities(audio: "Receive", video: "None", content: "None")
            let named = try await store.updateCapabilities(meetingId: record.meetingId, attendeeIds: [people[1].attendeeId],
                                                          excluding: [], capabilities: receive)
            #expect(named.map(\.attendeeId) == [people[1].attendeeId])
            let others = try await store.updateCapabilities(meetingId: record.meetingId, attendeeIds: nil,
                                                           excluding: [people[0].attendeeId], capabilities: receive)
            #expect(others.map(\.attendeeId) == [people[1].attendeeId, people[2].attendeeId])
            #expect(try await store.attendee(joinToken: people[2].joinToken)?.capabilities == receive)
            #expect(try await store.attendee(joinToken: people[0].joinToken)?.capabilities == people[0].capabilities)
        }
    }

    @Test(arguments: Kind.allCases)
    func deletingAMeetingTakesItsAttendeesAndTags(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let record = Self.meeting()
            try await store.insertMeeting(record, idempotencyKey: nil)
            let person = Self.attendee(record.meetingId, "alice")
            _ = try await store.insertAttendee(person, limit: 10)
            try await store.setTags(meetingId: record.meetingId, tags: [.init(key: "b", value: "2"), .init(key: "a", value: "1")])
            #expect(try await store.tags(meetingId: record.meetingId) == [.init(key: "a", value: "1"), .init(key: "b", value: "2")])
            try await store.setTags(meetingId: record.meetingId, tags: [.init(key: "c", value: "")])
            #expect(try await store.tags(meetingId: record.meetingId) == [.init(key: "c", value: "")])
            #expect(try await store.deleteMeeting(id: record.meetingId))
            #expect(try await store.attendee(joinToken: person.joinToken) == nil)
            #expect(try await store.tags(meetingId: record.meetingId).isEmpty)
            #expect(try await store.deleteMeeting(id: record.meetingId) == false)
        }
    }

    @Test(arguments: Kind.allCases)
    func settingsAreUpserted(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            #expect(try await store.setting("secret") == nil)
            try await store.setSetting("secret", value: "abc")
            try await store.setSetting("secret", value: "def")
            #expect(try await store.setting("secret") == "def")
        }
    }

    /// One active pipeline per meeting, at most the limit active, a token's repeat returns its pipeline, statuses move
    /// only from what the caller expects, and the unfinished ones are listed for a restart.
    @Test(arguments: Kind.allCases)
    func capturePipelineRules(kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let key = IdempotencyKey(accessKeyId: "AK", token: "tok", fingerprint: "f")
            let first = Self.pipeline("m-1")
            #expect(try await store.insertCapturePipeline(first, idempotencyKey: key, activeLimit: 2) == .created(first))
            #expect(try await store.insertCapturePipeline(Self.pipeline("m-9"), idempotencyKey: key, activeLimit: 2) == .repeated(first))
            #expect(try await store.insertCapturePipeline(
                Self.pipeline("m-9"), idempotencyKey: IdempotencyKey(accessKeyId: "AK", token: "tok", fingerprint: "other"),
                activeLimit: 2) == .tokenReused)
            #expect(try await store.insertCapturePipeline(Self.pipeline("m-1"), idempotencyKey: nil, activeLimit: 2)
                == .meetingAlreadyCaptured(pipelineId: first.pipelineId))
            let second = Self.pipeline("m-2")
            #expect(try await store.insertCapturePipeline(second, idempotencyKey: nil, activeLimit: 2) == .created(second))
            #expect(try await store.insertCapturePipeline(Self.pipeline("m-3"), idempotencyKey: nil, activeLimit: 2)
                == .limitExceeded(limit: 2))

            let moved = try await store.updateCapturePipeline(id: first.pipelineId, status: .inProgress, from: [.initializing],
                                                              at: Date(timeIntervalSince1970: 5))
            #expect(moved?.status == .inProgress && moved?.updatedAt == Date(timeIntervalSince1970: 5))
            let refused = try await store.updateCapturePipeline(id: first.pipelineId, status: .stopped, from: [.initializing],
                                                                at: Date(timeIntervalSince1970: 6))
            #expect(refused?.status == .inProgress)
            _ = try await store.updateCapturePipeline(id: second.pipelineId, status: .stopped, from: [.initializing],
                                                      at: Date(timeIntervalSince1970: 7))
            #expect(try await store.updateCapturePipeline(id: "missing", status: .stopped, from: [.initializing], at: Date()) == nil)
            #expect(try await store.unfinishedCapturePipelines().map(\.pipelineId) == [first.pipelineId])
            #expect(try await store.capturePipeline(id: second.pipelineId)?.status == .stopped)
            let page = try await store.capturePipelines(after: 0, limit: 1)
            #expect(page.map(\.record.pipelineId) == [first.pipelineId])
            #expect(try await store.capturePipelines(after: page[0].sequence, limit: 5).map(\.record.pipelineId) == [second.pipelineId])
            // A stopped pipeline no longer counts against the limit.
            #expect(try await store.insertCapturePipeline(Self.pipeline("m-3"), idempotencyKey: nil, activeLimit: 2) != .limitExceeded(limit: 2))
        }
    }

    /// Nodes starting together migrate one database: each version is applied once, by one of them.
    @Test func concurrentMigrationsApplyEachVersionOnce() async throws {
        let configuration = try TestPostgreSQL.shared.get().newDatabase()
        let stores = (0..<4).map { _ in PostgresMeetingStore(configuration: configuration, logger: TestPostgreSQL.logger) }
        let applied = try await withThrowingTaskGroup(of: [Int]?.self) { group in
            for store in stores { group.addTask { await store.run(); return nil } }
            let migrations = try await withThrowingTaskGroup(of: [Int].self) { inner in
                for store in stores { inner.addTask { try await store.migrate() } }
                return try await inner.reduce(into: [[Int]]()) { $0.append($1) }
            }
            group.cancelAll()
            return migrations
        }
        #expect(applied.flatMap { $0 } == PostgresMeetingStore.migrations.map(\.version))
        #expect(applied.filter(\.isEmpty).count == 3)
    }
}
