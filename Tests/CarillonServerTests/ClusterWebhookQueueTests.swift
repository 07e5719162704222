import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CarillonServer

/// A cluster's webhook queue in the tests' own PostgreSQL: only meetings that asked for events queue them (their
/// MeetingStarted subscribes them, their MeetingEnded is the last), each event is delivered once even with several
/// nodes delivering at once, a meeting's events in order, a failed one retried after the back-off and given up after
/// its attempts.
@Suite struct ClusterWebhookQueueTests {
    static func body(_ meetingId: String, _ index: Int) -> String { #"{"meeting":"\#(meetingId)","n":\#(index)}"# }

    @Test func onlySubscribedMeetingsQueueAndTheirEndUnsubscribes() async throws {
        try await ClusterPlacementTests.withStore { store in
            try await store.enqueueWebhook(meetingId: "quiet", body: Self.body("quiet", 0), subscription: .requires)
            #expect(try await store.queuedWebhooks() == 0)
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 0), subscription: .subscribes)
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 1), subscription: .requires)
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 2), subscription: .ends)
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 3), subscription: .requires)
            try await store.enqueueWebhook(meetingId: "quiet", body: Self.body("quiet", 1), subscription: .ends)
            #expect(try await store.queuedWebhooks() == 3)
            let delivered = NIOLockedValueBox<[String]>([])
            while try await store.deliverNextWebhook(maximumAttempts: 3, deliver: { body in
                delivered.withLockedValue { $0.append(body) }
                return true
            }) {}
            #expect(delivered.withLockedValue { $0 } == (0...2).map { Self.body("m", $0) })
            #expect(try await store.queuedWebhooks() == 0)
        }
    }

    /// Three deliverers (three nodes) drain 4 meetings' 40 events: each event once, each meeting's in order.
    @Test func severalNodesDeliverEachEventOnceInOrderPerMeeting() async throws {
        try await ClusterPlacementTests.withStore { store in
            let meetings = ["a", "b", "c", "d"]
            for meeting in meetings {
                try await store.enqueueWebhook(meetingId: meeting, body: Self.body(meeting, 0), subscription: .subscribes)
            }
            for index in 1..<10 {
                for meeting in meetings {
                    try await store.enqueueWebhook(meetingId: meeting, body: Self.body(meeting, index), subscription: .requires)
                }
            }
            let delivered = NIOLockedValueBox<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        while try await store.deliverNextWebhook(maximumAttempts: 3, deliver: { body in
                            try? await Task.sleep(for: .milliseconds(2))
                            delivered.withLockedValue { $0.append(body) }
                            return true
                        }) {}
                    }
                }
                try await group.waitForAll()
            }
            let all = delivered.withLockedValue { $0 }
            #expect(all.count == 40 && Set(all).count == 40)
            for meeting in meetings {
                #expect(all.filter { $0.contains(#""meeting":"\#(meeting)""#) } == (0..<10).map { Self.body(meeting, $0) })
            }
        }
    }

    /// A receiver that fails: the event waits out the back-off (the meeting's later events behind it), then is tried
    /// again, and is given up after its attempts.
    @Test func aFailedEventIsRetriedAfterTheBackOffThenGivenUp() async throws {
        try await ClusterPlacementTests.withStore { store in
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 0), subscription: .subscribes)
            try await store.enqueueWebhook(meetingId: "m", body: Self.body("m", 1), subscription: .requires)
            let attempts = NIOLockedValueBox<[String]>([])
            let failing: @Sendable (String) async -> Bool = { body in
                attempts.withLockedValue { $0.append(body) }
                return false
            }
            #expect(try await store.deliverNextWebhook(maximumAttempts: 2, deliver: failing))
            #expect(try await store.deliverNextWebhook(maximumAttempts: 2, deliver: failing) == false,
                    "due again only after the back-off; the next event waits behind it")
            try await Task.sleep(for: .nanoseconds(WebhookDeliveryCore.backoff(afterAttempts: 1).nanoseconds) + .milliseconds(100))
            #expect(try await store.deliverNextWebhook(maximumAttempts: 2, deliver: failing))
            #expect(attempts.withLockedValue { $0 } == [Self.body("m", 0), Self.body("m", 0)])
            #expect(try await store.queuedWebhooks() == 1, "given up after two attempts")
            #expect(try await store.deliverNextWebhook(maximumAttempts: 2, deliver: { _ in true }))
            #expect(try await store.queuedWebhooks() == 0)
        }
    }
}
