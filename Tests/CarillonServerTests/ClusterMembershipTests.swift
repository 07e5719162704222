import CarillonProtocol
import Foundation
import Logging
import NIOPosix
import Testing

@testable import CarillonServer

/// A node as a cluster member, on the tests' own PostgreSQL (``ClusterPlacementTests`` has the store): where its
/// signaling sockets go, the fence that lets go of a meeting that moved, and the control-API changes other nodes send
/// it over `LISTEN`/`NOTIFY`.
@Suite struct ClusterMembershipTests {
    struct Member {
        let rooms: MeetingRooms
        let node: NodeHeartbeat
        let membership: ClusterMembership
    }

    static func member(_ nodeId: String, store: PostgresMeetingStore) -> Member {
        let logger = TestPostgreSQL.logger
        let rooms = MeetingRooms(group: MultiThreadedEventLoopGroup.singleton,
                                 configuration: MeetingSignalingCore.Configuration(), logger: logger)
        let node = NodeHeartbeat(nodeId: nodeId, url: "http://\(nodeId):8080", mediaAddress: "\(nodeId):3478",
                                 rooms: rooms)
        node.bound(to: ServerAddress(endpoint: "http://\(nodeId):8080", port: 8080, mediaPort: 3478))
        return Member(rooms: rooms, node: node,
                      membership: ClusterMembership(store: store, node: node, rooms: rooms,
                                                    local: LiveMeetingTerminator(rooms: rooms, logger: logger),
                                                    logger: logger))
    }

    /// A socket for a meeting placed here is served here at its epoch; one placed on another node is bridged to that
    /// node's URL, unless it was bridged here already.
    @Test func socketsAreServedWhereTheMeetingIsHosted() async throws {
        try await ClusterPlacementTests.withStore { store in
            try await ClusterPlacementTests.beat(store, ["node-a", "node-b"])
            let ids = try await ClusterPlacementTests.meetings(store, 2)
            let a = Self.member("node-a", store: store)
            #expect(await a.membership.route(meetingId: ids[0], bridgedBy: nil) == .local(epoch: 1))
            #expect(await a.membership.route(meetingId: ids[1], bridgedBy: nil)
                    == .bridge(nodeId: "node-b", url: "http://node-b:8080"))
            guard case .unavailable = await a.membership.route(meetingId: ids[1], bridgedBy: "node-c") else {
                Issue.record("a bridged socket was bridged on")
                return
            }
        }
    }

    /// A room opened at a placement stays while the placement holds; once the meeting has moved to another node (this
    /// node was dead for a while), the fence lets it go without ending the meeting, so it can be served again.
    @Test func theFenceLetsGoOfAMeetingThatMoved() async throws {
        try await ClusterPlacementTests.withStore { store in
            try await ClusterPlacementTests.beat(store, ["node-a"])
            let id = try await ClusterPlacementTests.meetings(store, 1)[0]
            let a = Self.member("node-a", store: store)
            guard case .local(let epoch) = await a.membership.route(meetingId: id, bridgedBy: nil) else {
                Issue.record("not served here")
                return
            }
            let room = try #require(a.rooms.room(for: id, epoch: epoch))
            await a.membership.fence()
            #expect(a.rooms.existingRoom(for: id) === room && a.rooms.placedEpochs() == [id: 1])

            try await ClusterPlacementTests.beat(store, ["node-b"])
            try await Task.sleep(for: ClusterPlacementTests.deadAfter + .milliseconds(100))
            try await ClusterPlacementTests.beat(store, ["node-b"])
            #expect(try await store.host(meetingId: id) == MeetingHost(nodeId: "node-b", epoch: 2, alive: true))
            await a.membership.fence()
            #expect(a.rooms.existingRoom(for: id) == nil && a.rooms.placedEpochs().isEmpty)
            #expect(a.rooms.room(for: id) != nil, "moved, not ended")
        }
    }

    /// A DeleteMeeting taken by one node ends the meeting's room on another through the database; a node ignores
    /// its own notifications (it applied the change when it took the call).
    @Test func aMeetingDeletedThroughAnotherNodeEndsHere() async throws {
        try await ClusterPlacementTests.withStore { store in
            try await ClusterPlacementTests.beat(store, ["node-a", "node-b"])
            let ids = try await ClusterPlacementTests.meetings(store, 2)
            let a = Self.member("node-a", store: store)
            let b = Self.member("node-b", store: store)
            for id in ids { _ = try #require(a.rooms.room(for: id, epoch: 1)) }
            let listening = Task { await a.membership.listen() }
            defer { listening.cancel() }
            // The listener may not be listening yet: node-b repeats its notification until one arrives.
            let ready = Date().addingTimeInterval(10)
            var delivered = false
            while !delivered && Date() < ready {
                b.membership.meetingDeleted(meetingId: ids[0])
                try await Task.sleep(for: .milliseconds(100))
                delivered = a.rooms.existingRoom(for: ids[0]) == nil
            }
            #expect(delivered)
            #expect(a.rooms.room(for: ids[0]) == nil, "ended, not just released")
            a.membership.apply(String(decoding: try JSONEncoder().encode(
                LiveMeetingChange(from: "node-a", kind: .meetingDeleted, meetingId: ids[1])), as: UTF8.self))
            #expect(a.rooms.existingRoom(for: ids[1]) != nil, "its own notification is ignored")
            a.membership.apply("not json")
            #expect(a.rooms.existingRoom(for: ids[1]) != nil)
        }
    }
}
