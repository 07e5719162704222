import Carillon
import CarillonControlClient
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore
import Synchronization

/// A bench bot (``WebRTCAudioBot``, ``WebRTCVideoBot``) in a Carillon meeting: the same bot (socket,
/// `PeerConnection`, pre-encoded media, packet counters) as on the Janus side of the side-by-side bench, joined
/// through Chime signaling by the SDK's own `SignalingSessionCore` and `SignalingSocket`. Only the signaling differs
/// between the two columns.
///
/// The offer is the SDK's (`SessionMediaPlan`) over the bot's transport, with one change: the receive m-lines do
/// not offer transport-wide congestion control, since a bot sends no feedback (as the Janus subscribers answer). A
/// video bot asks to send its camera (no simulcast) and/or to receive every camera, as the SDK's
/// `startLocalVideo` and `startRemoteVideo` do.
///
/// Why: the SDK's sessions encode live and estimate delivery from their metrics, so they cannot be compared with
/// Janus's bots; these bots count the packets they receive, as those do. Cost: the bot's, plus one WebSocket and the
/// signaling core's timer (a ping every 10 s). Threading: the core, the socket and the timer belong to the bot's
/// event loop (every step runs there); ``waitUntilStarted(timeout:)`` and ``leave(timeout:)`` may be called anywhere.
final class ChimeBot<Media: ChimeBotMedia>: @unchecked Sendable {
    /// How the session ended or where it stands.
    private enum Outcome {
        case joining
        case started
        case stopped(MeetingSessionStatusCode)
        case failed(String)
    }

    /// What the session does once in the meeting.
    struct Role: Sendable {
        /// Mutes (the server is told through signaling; the bot sends nothing).
        var muted = false
        /// Sends the camera, at most this many kbit/s (the SDK's `maxBitRateKbps`).
        var sendsVideoKbps: UInt32?
        /// Receives every remote camera.
        var receivesVideo = false
    }

    /// The media side, shared with the Janus bench.
    let bot: Media

    private let eventLoop: any EventLoop
    private let target: SignalingSocket.Target
    private let joinToken: String
    private let role: Role
    private let outcome = Mutex(Outcome.joining)
    /// How the signaling socket ended, each time (a bench's report).
    private let closes = Mutex<[String]>([])
    /// Whether the server's SDP answer came (SUBSCRIBE_ACK).
    private let answered = Atomic<Bool>(false)
    // Confined to `eventLoop`.
    private var core: SignalingSessionCore
    private var socket: SignalingSocket?
    private var mediaRequested = false
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.timerFired() }

    /// Creates an attendee of `meeting` through `client` and starts the session of `bot` (whose socket is on `loop`)
    /// with `role`.
    static func join(client: ControlAPIClient, meeting: (response: CreateMeetingResponse, meetingId: String), name: String,
                     bot: Media, role: Role, on loop: any EventLoop) async throws -> ChimeBot {
        let json = try await client.send("POST", "/meetings/\(meeting.meetingId)/attendees",
                                         body: try JSONSerialization.data(withJSONObject: ["ExternalUserId": name]))
        let configuration = MeetingSessionConfiguration(
            createMeetingResponse: meeting.response,
            createAttendeeResponse: try JSONDecoder().decode(CreateAttendeeResponse.self, from: json))
        let session = try ChimeBot(configuration: configuration, bot: bot, role: role, on: loop)
        try await loop.submit { session.apply { $0.start(reconnectBudget: .zero, now: $1) } }.get()
        return session
    }

    private init(configuration: MeetingSessionConfiguration, bot: Media, role: Role, on loop: any EventLoop) throws {
        self.bot = bot
        eventLoop = loop
        target = try SignalingSocket.Target(url: DefaultAudioVideoFacade.signalingURL(configuration.urls.signalingUrl))
        joinToken = configuration.credentials.joinToken
        self.role = role
        core = SignalingSessionCore(credentials: configuration.credentials, audioHost: configuration.urls.audioHostUrl,
                                    audioSessionId: UInt64(UInt32.random(in: 1...UInt32.max)))
    }

    /// Where the session stands, for a bench's report: joining, started, stopped with a status, or failed and why.
    var state: String {
        switch outcome.withLock({ $0 }) {
        case .joining: "joining"
        case .started: "in the meeting"
        case .stopped(let code): "stopped (\(code))" + closeHistory
        case .failed(let reason): "failed: \(reason)" + closeHistory
        }
    }

    private var closeHistory: String {
        let closes = closes.withLock { $0 }
        return (closes.isEmpty ? "" : " (signaling: \(closes.joined(separator: ", ")))")
            + "; answered: \(answered.load(ordering: .relaxed)); media: \(bot.connectionPhase)"
    }

    /// Waits until the session is in the meeting (SUBSCRIBE answered, ICE and DTLS up).
    func waitUntilStarted(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch outcome.withLock({ $0 }) {
            case .started: return
            case .stopped, .failed: throw BenchTimeout(what: "a session that ended: \(state)")
            case .joining: break
            }
            guard ContinuousClock.now < deadline else { throw BenchTimeout(what: "a Chime bot's join") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Leaves (LEAVE, LEAVE_ACK), waiting up to `timeout`, then closes the signaling socket and the bot's media.
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
                var offer = plan.offer(transport: bot.transport, audioSSRC: bot.audioSSRC, videoSSRCs: bot.videoSSRCs,
                                       cname: core.credentials.attendeeId)
                for index in offer.media.indices where offer.media[index].direction == .recvonly {
                    offer.media[index].extensions.removeAll { $0.uri == SDPExtension.transportWideCCURI }
                    offer.media[index].codecs = offer.media[index].codecs.map { codec in
                        var codec = codec
                        codec.feedback.removeAll { $0 == "transport-cc" }
                        return codec
                    }
                }
                apply { $0.mediaOfferReady(offer.serialized, now: $1) }
            case .connectMedia(let answer, _):
                answered.store(true, ordering: .relaxed)
                do {
                    try bot.connect(answer: answer) { [weak self] failure in
                        guard let self else { return }
                        // The bot's socket is bound on this loop, so this runs here.
                        if let failure { self.fail("media: \(failure)") }
                        self.apply { failure == nil ? $0.mediaConnected(now: $1) : $0.mediaFailed(now: $1) }
                    }
                } catch {
                    fail("the server's answer cannot be used: \(error)")
                }
            case .event(.started):
                outcome.withLock { $0 = .started }
                if role.muted { apply { $0.setMuted(true, now: $1).actions } }
                if let kbps = role.sendsVideoKbps { apply { $0.setSendingVideo(true, maxBitrateKbps: kbps, now: $1) } }
                if role.receivesVideo { apply { $0.setReceivingVideo(true, now: $1) } }
            case .event(.stopped(let code)):
                // A failure already recorded says more than the status it ends with.
                outcome.withLock { if case .failed = $0 {} else { $0 = .stopped(code) } }
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
            noteClosed(code: code)
            apply { $0.socketClosed(code: code, now: $1) }
        case .tlsFailed(let reason):
            socket = nil
            fail("signaling TLS failed: \(reason)")
            apply { $0.socketFailedTLS(now: $1) }
        }
    }

    private func fail(_ reason: String) {
        outcome.withLock { if case .stopped = $0 {} else { $0 = .failed(reason) } }
    }

    /// Records why the signaling socket ended (before the core decides what that means).
    private func noteClosed(code: UInt16?) {
        let phase = core.isInMeeting ? "in the meeting" : "joining"
        closes.withLock { $0.append("\(phase): closed \(code.map(String.init) ?? "abnormally")") }
    }
}
