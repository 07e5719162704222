import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore
import Synchronization

/// A ``WebRTCAudioBot`` in a Carillon meeting: the same bot (socket, `PeerConnection`, pre-encoded Opus, packet
/// counter) as on the Janus side of the side-by-side bench, joined through Chime signaling by the SDK's own
/// `SignalingSessionCore` and `SignalingSocket`. Only the signaling differs between the two columns.
///
/// Why: the SDK's sessions encode live and estimate delivery from their loss metric, so they cannot be compared with
/// Janus's bots; this bot counts the packets it receives, as they do. Cost: the bot's, plus one WebSocket and the
/// signaling core's timer (a ping every 10 s). Threading: the core, the socket and the timer belong to the bot's
/// event loop (every step runs there); ``waitUntilStarted(timeout:)`` and ``leave(timeout:)`` may be called anywhere.
final class ChimeAudioBot: @unchecked Sendable {
    /// How the session ended or where it stands.
    private enum Outcome {
        case joining
        case started
        case stopped(MeetingSessionStatusCode)
        case failed(String)
    }

    /// The media side, shared with the Janus bench.
    let bot: WebRTCAudioBot
    /// The Opus payload type the server's answer kept, once connected.
    var payloadType: UInt8 { negotiatedPayloadType.load(ordering: .relaxed) }

    private let eventLoop: any EventLoop
    private let target: SignalingSocket.Target
    private let joinToken: String
    private let joinsMuted: Bool
    private let outcome = Mutex(Outcome.joining)
    private let negotiatedPayloadType = Atomic<UInt8>(AudioSessionDescription.offeredOpusPayloadType)
    // Confined to `eventLoop`.
    private var core: SignalingSessionCore
    private var socket: SignalingSocket?
    private var mediaRequested = false
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.timerFired() }

    /// Creates an attendee of `meeting` through `client` and starts its session on `loop`; the bot's media socket is
    /// bound on `host`. Joins muted (the server is told through signaling, nothing is sent) when `muted`; decodes
    /// what it receives when `decodes` (``WebRTCAudioBot/dominantFrequency(of:)``).
    static func join(client: ControlAPIClient, meeting: (response: CreateMeetingResponse, meetingId: String), name: String,
                     host: String, muted: Bool, decodes: Bool = false, on loop: any EventLoop) async throws -> ChimeAudioBot {
        let json = try await client.send("POST", "/meetings/\(meeting.meetingId)/attendees",
                                         body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name]))
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: meeting.response,
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: json))
        let bot = try await WebRTCAudioBot(host: host, on: loop, decodes: decodes)
        let session = try ChimeAudioBot(configuration: configuration, bot: bot, muted: muted, on: loop)
        try await loop.submit { session.apply { $0.start(reconnectBudget: .zero, now: $1) } }.get()
        return session
    }

    private init(configuration: MeetingSessionConfiguration, bot: WebRTCAudioBot, muted: Bool, on loop: any EventLoop) throws {
        self.bot = bot
        eventLoop = loop
        target = try SignalingSocket.Target(url: DefaultAudioVideoFacade.signalingURL(configuration.urls.signalingUrl))
        joinToken = configuration.credentials.joinToken
        joinsMuted = muted
        core = SignalingSessionCore(credentials: configuration.credentials, audioHost: configuration.urls.audioHostUrl,
                                    audioSessionId: UInt64(UInt32.random(in: 1...UInt32.max)))
    }

    /// Waits until the session is in the meeting (SUBSCRIBE answered, ICE and DTLS up).
    func waitUntilStarted(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch outcome.withLock({ $0 }) {
            case .started: return
            case .stopped(let code): throw BenchTimeout(what: "a session that stopped with \(code)")
            case .failed(let reason): throw BenchTimeout(what: "a session that failed: \(reason)")
            case .joining: break
            }
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "a Chime bot's join") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Leaves (LEAVE, LEAVE_ACK), waiting up to `timeout`, then closes the bot's media.
    func leave(timeout: Duration = .seconds(10)) async {
        try? await eventLoop.submit { self.apply { $0.stop(now: $1) } }.get()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if case .stopped = outcome.withLock({ $0 }) { break }
            if case .failed = outcome.withLock({ $0 }) { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        try? await eventLoop.submit {
            self.timer.follow(nil)
            self.socket?.close()
            self.socket = nil
        }.get()
        await bot.close()
    }

    // MARK: On the loop

    private func apply(_ step: (inout SignalingSessionCore, SessionTime) -> [SessionAction]) {
        eventLoop.assertInEventLoop()
        perform(step(&core, SessionTime.reading(monotonic: eventLoop.now)))
        timer.follow(core.nextDeadline)
    }

    private func timerFired() {
        apply { $0.tick(now: $1) }
    }

    private func perform(_ actions: [SessionAction]) {
        for action in actions {
            switch action {
            case .openSocket:
                socket?.close()
                socket = SignalingSocket.connect(to: target, joinToken: joinToken, on: eventLoop) { [weak self] event in
                    self?.socketEvent(event)
                }
            case .send(let frame):
                guard let bytes = try? SignalFrameCodec.encode(frame) else {
                    fail("could not encode a \(frame.type) frame")
                    continue
                }
                socket?.send(bytes)
            case .closeSocket:
                socket?.close()
                socket = nil
            case .prepareMedia(let plan), .renegotiateMedia(let plan):
                // One media connection per bot: a reconnect would need a new socket, which a bench bot does not make.
                guard !mediaRequested || core.isInMeeting else {
                    fail("the session reconnected")
                    continue
                }
                mediaRequested = true
                let offer = plan.offer(transport: bot.transport, audioSSRC: bot.ssrc,
                                       videoSSRCs: (UInt32.random(in: 1...UInt32.max), UInt32.random(in: 1...UInt32.max)),
                                       cname: core.credentials.attendeeId)
                apply { $0.mediaOfferReady(offer.serialized, now: $1) }
            case .connectMedia(let answer, _):
                do {
                    let payloadType = try bot.connect(answer: answer) { [weak self] connected in
                        guard let self else { return }
                        // The bot's socket is bound on this loop, so this runs here.
                        self.apply { connected ? $0.mediaConnected(now: $1) : $0.mediaFailed(now: $1) }
                    }
                    negotiatedPayloadType.store(payloadType, ordering: .relaxed)
                } catch {
                    fail("the server's answer cannot be used: \(error)")
                }
            case .event(.started):
                outcome.withLock { $0 = .started }
                if joinsMuted { apply { $0.setMuted(true, now: $1).actions } }
            case .event(.stopped(let code)):
                outcome.withLock { $0 = .stopped(code) }
            case .event, .applyAnswer, .stopMedia, .setVideoPausedAtSource:
                break
            }
        }
    }

    private func socketEvent(_ event: SignalingSocket.Event) {
        switch event {
        case .opened:
            apply { $0.socketOpened(now: $1) }
        case .message(let bytes):
            guard let frame = try? SignalFrameCodec.decode(bytes) else { return }
            apply { $0.received(frame, now: $1) }
        case .closed(let code):
            socket = nil
            apply { $0.socketClosed(code: code, now: $1) }
        case .tlsFailed(let reason):
            socket = nil
            fail("signaling TLS failed: \(reason)")
        }
    }

    private func fail(_ reason: String) {
        outcome.withLock { if case .stopped = $0 {} else { $0 = .failed(reason) } }
    }
}
