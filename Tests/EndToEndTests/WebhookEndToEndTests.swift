import Carillon
import CarillonProtocol
import CarillonServer
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// Meeting lifecycle events as signed webhooks, against a receiver the test runs on 127.0.0.1.
@Suite(.timeLimit(.minutes(2)))
struct WebhookEndToEndTests {
    static let secret = "webhook-test-secret"
    static let notifications = ["SnsTopicArn": "arn:aws:sns:us-east-1:111122223333:meeting-events"]

    func createMeeting(_ harness: ServerHarness, notify: Bool) async throws -> (response: CreateMeetingResponse, meetingId: String) {
        var body: [String: Any] = ["ClientRequestToken": UUID().uuidString, "ExternalMeetingId": "hooks",
                                   "MediaRegion": "us-east-1"]
        if notify { body["NotificationsConfiguration"] = Self.notifications }
        let json = try await harness.client.send("POST", "/meetings", body: try JSONSerialization.data(withJSONObject: body))
        let id = try #require(try JSONDecoder().decode(ControlAPI.MeetingResponse.self, from: json).meeting?.meetingId)
        return (try JSONDecoder().decode(CreateMeetingResponse.self, from: json), id)
    }

    func joinAndLeave(_ harness: ServerHarness, _ meeting: (response: CreateMeetingResponse, meetingId: String),
                      name: String) async throws {
        let session = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: name),
                                            logger: ConsoleLogger(name: name, level: .OFF))
        let probe = SessionProbe(name: name)
        session.audioVideo.addAudioVideoObserver(observer: probe)
        try session.audioVideo.start()
        try await probe.wait("\(name) joined") { $0.starts == [false] }
        session.audioVideo.stop()
        try await probe.wait("\(name) left") { $0.stopStatus == .ok }
    }

    @Test func aReceiverGetsTheLifecycleInOrderWithValidSignatures() async throws {
        let receiver = try await WebhookReceiver.start(answers: true)
        let harness = try await ServerHarness.start(webhook: WebhookTarget(url: receiver.url, secret: Self.secret))
        defer { Task { await harness.stop(); await receiver.stop() } }
        let quiet = try await createMeeting(harness, notify: false)
        let meeting = try await createMeeting(harness, notify: true)
        try await joinAndLeave(harness, quiet, name: "quiet")

        let alice = DefaultMeetingSession(configuration: try await harness.configuration(meeting: meeting, name: "alice"),
                                          logger: ConsoleLogger(name: "alice", level: .OFF))
        let probe = SessionProbe(name: "alice")
        alice.audioVideo.addAudioVideoObserver(observer: probe)
        try alice.audioVideo.start()
        try await probe.wait("alice joined") { $0.starts == [false] }
        try alice.audioVideo.startLocalVideo()
        try await receiver.wait(for: .attendeeVideoStarted)
        alice.audioVideo.stopLocalVideo()
        try await receiver.wait(for: .attendeeVideoStopped)
        alice.audioVideo.stop()
        try await probe.wait("alice left") { $0.stopStatus == .ok }
        _ = try await harness.client.send("DELETE", "/meetings/\(meeting.meetingId)")

        try await receiver.wait(for: .meetingEnded)
        let requests = receiver.requests
        let events = try requests.map { try JSONDecoder().decode(MeetingEvent.self, from: Data($0.body)) }
        #expect(events.map(\.eventType) == [.meetingStarted, .attendeeAdded, .attendeeJoined, .attendeeVideoStarted,
                                            .attendeeVideoStopped, .attendeeLeft, .meetingEnded])
        #expect(events.allSatisfy { $0.meetingId == meeting.meetingId })
        #expect(events[1].externalUserId == "alice" && events[2].attendeeId == events[1].attendeeId)
        for request in requests {
            let signature = try #require(request.signature)
            let seconds = try #require(signature.split(separator: ",").first.flatMap { Int64($0.dropFirst(2)) })
            #expect(abs(seconds - Int64(Date().timeIntervalSince1970)) < 60)
            #expect(signature == WebhookDispatcher.signature(body: request.body, seconds: seconds, secret: Self.secret))
            #expect(signature != WebhookDispatcher.signature(body: request.body, seconds: seconds, secret: "other"))
        }
    }

    @Test func aReceiverThatIsDownDelaysNothing() async throws {
        // Accepts connections and never answers: every delivery waits for its 5 s timeout.
        let receiver = try await WebhookReceiver.start(answers: false)
        let harness = try await ServerHarness.start(webhook: WebhookTarget(url: receiver.url, secret: Self.secret))
        defer { Task { await harness.stop(); await receiver.stop() } }
        let started = ContinuousClock.now
        let meeting = try await createMeeting(harness, notify: true)
        try await joinAndLeave(harness, meeting, name: "bob")
        _ = try await harness.client.send("DELETE", "/meetings/\(meeting.meetingId)")
        // The whole lifecycle took well under one delivery timeout, though the first event is still in flight.
        #expect(ContinuousClock.now - started < .seconds(4))
        // The deliveries were tried all the same.
        let deadline = ContinuousClock.now + .seconds(5)
        while receiver.connections == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(receiver.connections >= 1 && receiver.requests.isEmpty)
    }
}

/// An HTTP server on 127.0.0.1 that records each POST (body and signature) and answers 204, or never answers.
final class WebhookReceiver: Sendable {
    struct Request: Sendable {
        let body: [UInt8]
        let signature: String?
    }

    /// What the connections saw; shared with their handlers.
    final class Record: Sendable {
        let state = Mutex<(connections: Int, requests: [Request])>((0, []))
    }

    private let channel: any Channel
    private let record: Record

    private init(channel: any Channel, record: Record) {
        self.channel = channel
        self.record = record
    }

    static func start(answers: Bool) async throws -> WebhookReceiver {
        let record = Record()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(record: record, answers: answers))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return WebhookReceiver(channel: channel, record: record)
    }

    var url: String { "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/hooks" }

    /// Waits (at most 10 s) until an event of `type` arrived.
    func wait(for type: MeetingEvent.EventType) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !requests.contains(where: { (try? JSONDecoder().decode(MeetingEvent.self, from: Data($0.body)))?.eventType == type }) {
            guard ContinuousClock.now < deadline else { throw ProbeTimeout(description: "no \(type) webhook arrived") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
    var requests: [Request] { record.state.withLock { $0.requests } }
    var connections: Int { record.state.withLock { $0.connections } }
    func stop() async { try? await channel.close() }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let record: Record
        let answers: Bool
        var signature: String?
        var body: [UInt8] = []

        init(record: Record, answers: Bool) {
            self.record = record
            self.answers = answers
        }

        func channelActive(context: ChannelHandlerContext) {
            record.state.withLock { $0.connections += 1 }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                signature = head.headers.first(name: WebhookDispatcher.signatureHeader)
                body = []
            case .body(let buffer):
                body += Array(buffer.readableBytesView)
            case .end:
                guard answers else { return }
                let request = Request(body: body, signature: signature)
                record.state.withLock { $0.requests.append(request) }
                let head = HTTPResponseHead(version: .http1_1, status: .noContent)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
