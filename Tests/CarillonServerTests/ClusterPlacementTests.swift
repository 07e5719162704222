import Foundation
import Testing

@testable import CarillonServer

/// A cluster's nodes and meeting placement in the shared PostgreSQL (the tests' own server): meetings spread by load,
/// a dead node's meetings moved with a new epoch, the node fenced when it comes back, draining nodes giving theirs up.
/// Nodes are judged dead after 2 s here instead of 5 s (long enough that a busy machine never lets a node that just
/// heartbeated look dead), so one test waits that long.
@Suite struct ClusterPlacementTests {
    static let deadAfter = Duration.seconds(2)

    static func withStore(_ body: @Sendable (PostgresMeetingStore) async throws -> Void) async throws {
        let configuration = try TestPostgreSQL.shared.get().newDatabase()
        let store = PostgresMeetingStore(configuration: configuration, logger: TestPostgreSQL.logger,
                                         nodeDeadAfter: deadAfter)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            try await store.migrate()
            try await body(store)
        }
    }

    static func beat(_ store: PostgresMeetingStore, _ ids: [String], serving: Bool = true) async throws {
        for (index, id) in ids.enumerated() {
            try await store.heartbeat(ClusterHeartbeat(nodeId: id, url: "http://\(id):8080", mediaAddress: "\(id):3478",
                                                       serving: serving, meetings: index, attendees: 10 * index,
                                                       load: 0.25))
        }
    }

    static func meetings(_ store: PostgresMeetingStore, _ count: Int) async throws -> [String] {
        var ids: [String] = []
        for _ in 0..<count {
            let record = MeetingStoreConformanceTests.meeting()
            try await store.insertMeeting(record, idempotencyKey: nil)
            ids.append(record.meetingId)
        }
        return ids
    }

    /// Nine meetings placed at once through three nodes spread three to a node, each at epoch 1; asking again gives
    /// the same host; `nodes()` shows what each node reported.
    @Test func meetingsSpreadOverTheLiveNodesEvenUnderConcurrentPlacement() async throws {
        try await Self.withStore { store in
            try await Self.beat(store, ["node-a", "node-b", "node-c"])
            let ids = try await Self.meetings(store, 9)
            let hosts = try await withThrowingTaskGroup(of: (String, MeetingHost?).self) { group in
                for id in ids { group.addTask { (id, try await store.host(meetingId: id)) } }
                return try await group.reduce(into: [String: MeetingHost?]()) { $0[$1.0] = $1.1 }
            }
            let placed = hosts.values.compactMap { $0 }
            #expect(placed.count == 9 && placed.allSatisfy { $0.epoch == 1 && $0.alive })
            #expect(Dictionary(grouping: placed, by: \.nodeId).mapValues(\.count) == ["node-a": 3, "node-b": 3, "node-c": 3])
            #expect(try await store.host(meetingId: ids[0]) == hosts[ids[0]] ?? nil)
            let nodes = try await store.nodes()
            #expect(nodes.map(\.nodeId) == ["node-a", "node-b", "node-c"])
            #expect(nodes.allSatisfy { $0.state == .serving && $0.mediaAddress == "\($0.nodeId):3478" && $0.load == 0.25 })
            #expect(nodes.map(\.meetings) == [0, 1, 2] && nodes.map(\.attendees) == [0, 10, 20])
            #expect(try await store.host(meetingId: "no-such-meeting") == nil)
        }
    }

    /// A node stops heartbeating: it is reported dead, its meeting moves at the next ask to a live node at epoch 2,
    /// and when it heartbeats again it is fenced (its epoch is old) and does not get the meeting back.
    @Test func aDeadNodesMeetingsMoveAndItIsFencedWhenItReturns() async throws {
        try await Self.withStore { store in
            try await Self.beat(store, ["node-a"])
            let id = try await Self.meetings(store, 1)[0]
            let first = try #require(try await store.host(meetingId: id))
            #expect(first == MeetingHost(nodeId: "node-a", epoch: 1, alive: true))
            try await Self.beat(store, ["node-b"])
            try await Task.sleep(for: Self.deadAfter + .milliseconds(100))
            try await Self.beat(store, ["node-b"])
            #expect(try await store.nodes().map(\.state) == [.dead, .serving])
            #expect(try await store.currentHost(meetingId: id) == MeetingHost(nodeId: "node-a", epoch: 1, alive: false))
            let moved = try #require(try await store.host(meetingId: id))
            #expect(moved == MeetingHost(nodeId: "node-b", epoch: 2, alive: true))
            try await Self.beat(store, ["node-a"])
            // The returning node's placement is old: the fence (what ClusterMembership reads back) names node-b.
            #expect(try await store.currentHost(meetingId: id) == MeetingHost(nodeId: "node-b", epoch: 2, alive: true))
            #expect(try await store.host(meetingId: id) == moved)
        }
    }

    /// A draining node gets nothing new and its meetings move, at the next ask, to a serving node at the next epoch
    /// (its attendees, told to reconnect, land there); a meeting no other node can take stays where it is; with no
    /// live serving node a meeting not placed yet is placed nowhere.
    @Test func aDrainingNodeTakesNoNewMeetingsAndGivesUpItsOwn() async throws {
        try await Self.withStore { store in
            try await Self.beat(store, ["node-a", "node-b"])
            let ids = try await Self.meetings(store, 3)
            #expect(try await store.host(meetingId: ids[0]) == MeetingHost(nodeId: "node-a", epoch: 1, alive: true))
            try await Self.beat(store, ["node-a"], serving: false)
            #expect(try await store.host(meetingId: ids[1])?.nodeId == "node-b")
            #expect(try await store.host(meetingId: ids[2])?.nodeId == "node-b")
            #expect(try await store.host(meetingId: ids[0]) == MeetingHost(nodeId: "node-b", epoch: 2, alive: true))
            #expect(try await store.nodes().map(\.state) == [.draining, .serving])
            try await Self.beat(store, ["node-b"], serving: false)
            let late = try await Self.meetings(store, 1)[0]
            #expect(try await store.host(meetingId: late) == nil)
            #expect(try await store.host(meetingId: ids[1]) == MeetingHost(nodeId: "node-b", epoch: 1, alive: true),
                    "no serving node: it stays")
            // Deleting a meeting takes its placement with it.
            #expect(try await store.deleteMeeting(id: ids[1]))
            #expect(try await store.currentHost(meetingId: ids[1]) == nil)
            #expect(try await store.currentHosts(meetingIds: ids).keys.sorted() == [ids[0], ids[2]].sorted())
        }
    }
}
