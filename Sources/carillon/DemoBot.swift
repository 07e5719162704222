import Carillon
import CarillonProtocol
import Foundation
import Synchronization

/// One headless attendee of the demo: an SDK session plus what it has seen so far.
///
/// Threading: the session's callbacks write the state on its callback queue; the demo reads it from its task; a mutex
/// keeps the two apart.
final class DemoBot: Sendable {
    private struct Seen {
        var roster: Set<String> = []
        var muted: Set<String> = []
        var messages: [DataMessage] = []
        var stopStatus: MeetingSessionStatus?
        var joinLatency: Duration?
    }

    let name: String
    let session: DefaultMeetingSession
    private let seen = Mutex(Seen())
    private let printer: Mutex<AttendeeEventPrinter?> = Mutex(nil)

    private init(name: String, session: DefaultMeetingSession) {
        self.name = name
        self.session = session
    }

    var roster: Set<String> { seen.withLock { $0.roster } }
    var muted: Set<String> { seen.withLock { $0.muted } }
    var messages: [DataMessage] { seen.withLock { $0.messages } }
    var stopStatus: MeetingSessionStatus? { seen.withLock { $0.stopStatus } }
    var joinLatency: Duration? { seen.withLock { $0.joinLatency } }

    /// Creates the attendee through the REST API and starts its session.
    static func join(
        name: String,
        meeting: CreateMeetingResponse,
        meetingId: String,
        client: ControlAPIClient,
        log: DemoLog
    ) async throws -> DemoBot {
        let attendeeJSON = try await client.send(
            "POST", "/meetings/\(ControlAPIClient.segment(meetingId))/attendees",
            body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name])
        )
        let attendee = try JSONDecoder().decode(CreateAttendeeResponse.self, from: attendeeJSON)
        log.say("api", "CreateAttendee \(name)")
        let configuration = MeetingSessionConfiguration(createMeetingResponse: meeting, createAttendeeResponse: attendee)
        let session = DefaultMeetingSession(configuration: configuration, logger: ConsoleLogger(name: name, level: .ERROR))
        let bot = DemoBot(name: name, session: session)
        let startedAt = ContinuousClock.now
        let printer = AttendeeEventPrinter(
            prefix: "",
            output: { [name] line in log.say(name, line) },
            onStart: { [weak bot] _ in bot?.seen.withLock { $0.joinLatency = startedAt.duration(to: .now) } },
            onStop: { [weak bot] status in bot?.seen.withLock { $0.stopStatus = status } },
            onMessage: { [weak bot] message in bot?.seen.withLock { $0.messages.append(message) } },
            onRoster: { [weak bot] change in bot?.seen.withLock { seen in
                switch change {
                case .joined(let who): seen.roster.formUnion(who.map(\.externalUserId))
                case .left(let who), .dropped(let who): seen.roster.subtract(who.map(\.externalUserId))
                case .muted(let who): seen.muted.formUnion(who.map(\.externalUserId))
                case .unmuted(let who): seen.muted.subtract(who.map(\.externalUserId))
                }
            } }
        )
        bot.printer.withLock { $0 = printer }
        session.audioVideo.addAudioVideoObserver(observer: printer)
        session.audioVideo.addRealtimeObserver(observer: printer)
        session.audioVideo.addRealtimeDataMessageObserver(topic: "chat", observer: printer)
        try session.audioVideo.start()
        return bot
    }
}
