import Carillon
import CarillonServer
import Foundation
import Synchronization
import Testing

/// The meeting events a session publishes to `EventAnalyticsObserver`s and its meeting history, against a real server.
@Suite(.timeLimit(.minutes(2)))
struct EventAnalyticsEndToEndTests {
    final class EventRecorder: EventAnalyticsObserver, Sendable {
        struct Event: Sendable {
            let name: EventName
            let status: String?
            let timestampMs: Int64?
            let durationMs: Int?
            let startDurationMs: Int?
        }

        private let events = Mutex<[Event]>([])

        func eventDidReceive(name: EventName, attributes: [AnyHashable: Any]) {
            let event = Event(
                name: name,
                status: attributes[EventAttributeName.meetingStatus] as? String,
                timestampMs: attributes[EventAttributeName.timestampMs] as? Int64,
                durationMs: (attributes[EventAttributeName.meetingDurationMs] as? Int64).map(Int.init),
                startDurationMs: (attributes[EventAttributeName.meetingStartDurationMs] as? Int64).map(Int.init))
            events.withLock { $0.append(event) }
        }

        var all: [Event] { events.withLock { $0 } }
        /// The `meeting…` events' names, in order.
        var meetingEvents: [EventName] { all.map(\.name).filter { $0.description.hasPrefix("meeting") } }

        func wait(for name: EventName) async throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while !all.contains(where: { $0.name == name }) {
                guard ContinuousClock.now < deadline else {
                    throw ProbeTimeout(description: "no \(name); saw \(all.map(\.name))")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func aJoinAndALeavePublishStartRequestedSucceededAndEnded() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let session = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "alice"),
                                            logger: ConsoleLogger(name: "alice", level: .OFF),
                                            eventReporterFactory: NoopEventReporterFactory())
        let recorder = EventRecorder()
        session.audioVideo.addEventAnalyticsObserver(observer: recorder)
        try session.audioVideo.start()
        try await recorder.wait(for: .meetingStartSucceeded)
        session.audioVideo.stop()
        try await recorder.wait(for: .meetingEnded)

        #expect(recorder.meetingEvents == [.meetingStartRequested, .meetingStartSucceeded, .meetingEnded])
        #expect(recorder.all.map(\.name).contains(.videoClientSignalingOpened))
        let events = recorder.all
        #expect(events.allSatisfy { $0.timestampMs != nil })
        let succeeded = try #require(events.first { $0.name == .meetingStartSucceeded })
        #expect((succeeded.startDurationMs ?? -1) >= 0)
        let ended = try #require(events.first { $0.name == .meetingEnded })
        #expect(ended.status == "ok" && (ended.durationMs ?? -1) >= 0)
        // The history holds every published event, in order, and the analytics controller is the facade's.
        let history = session.audioVideo.getMeetingHistory().map(\.meetingHistoryEventName)
        #expect(history.filter { $0.description.hasPrefix("meeting") }
                == [.meetingStartRequested, .meetingStartSucceeded, .meetingEnded])
        #expect(session.eventAnalyticsController.getMeetingHistory().count == history.count)
        let common = session.audioVideo.getCommonEventAttributes()
        #expect(common["meetingId"] as? String == meeting.meetingId)
        #expect(common["attendeeId"] as? String == session.configuration.credentials.attendeeId)
        #expect(common["osName"] as? String == "Linux")
    }

    @Test func aRefusedJoinPublishesStartFailedWithItsStatus() async throws {
        let harness = try await ServerHarness.start()
        defer { Task { await harness.stop() } }
        let meeting = try await harness.createMeeting()
        let configuration = try await harness.configuration(meeting: meeting, name: "bob")
        // The attendee is deleted before it joins: its token is refused.
        _ = try await harness.client.send(
            "DELETE", "/meetings/\(meeting.meetingId)/attendees/\(configuration.credentials.attendeeId)")
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: "bob", level: .OFF))
        let recorder = EventRecorder()
        session.audioVideo.addEventAnalyticsObserver(observer: recorder)
        try session.audioVideo.start()
        try await recorder.wait(for: .meetingStartFailed)
        #expect(recorder.meetingEvents == [.meetingStartRequested, .meetingStartFailed])
        let failed = try #require(recorder.all.first { $0.name == .meetingStartFailed })
        #expect(failed.status == "audioAuthenticationRejected")
    }
}
