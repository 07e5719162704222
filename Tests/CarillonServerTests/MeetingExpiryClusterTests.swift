import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import CarillonServer

/// Expiry across a cluster: a node judges only the meetings no other live node hosts (the host judges those by its
/// room), so a meeting live on one node is never ended by another that has no room for it.
@Suite struct MeetingExpiryClusterTests {
    @Test func aNodeLeavesMeetingsHostedElsewhereToTheirHost() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("carillon-expiry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteMeetingStore(directory: directory)
        let logger = Logger(label: "expiry-test")
        let rooms = MeetingRooms(group: MultiThreadedEventLoopGroup.singleton,
                                 configuration: MeetingSignalingCore.Configuration(), logger: logger)
        // Both created an hour ago, and this node has run as long: both idle past the 5 minutes.
        let created = Date().timeIntervalSince1970 - 3_600
        let elsewhere = MeetingStoreConformanceTests.meeting(created: created)
        let here = MeetingStoreConformanceTests.meeting(created: created)
        for meeting in [elsewhere, here] { try await store.insertMeeting(meeting, idempotencyKey: nil) }
        let hostedElsewhere: @Sendable () async throws -> Set<String> = { [elsewhere.meetingId] }
        let expiry = MeetingExpiry(store: store, rooms: rooms, policy: MeetingExpiryPolicy(), logger: logger,
                                   started: .now() - .hours(1), hostedElsewhere: hostedElsewhere)
        #expect(await expiry.expireDue() == [here.meetingId])
        #expect(try await store.meeting(id: elsewhere.meetingId) != nil)

        // Without the cluster's placements this node decides nothing.
        struct Unreachable: Error {}
        let failing = MeetingExpiry(store: store, rooms: rooms, policy: MeetingExpiryPolicy(), logger: logger,
                                    started: .now() - .hours(1), hostedElsewhere: { throw Unreachable() })
        #expect(await failing.expireDue().isEmpty)
        #expect(try await store.meeting(id: elsewhere.meetingId) != nil)
    }
}
