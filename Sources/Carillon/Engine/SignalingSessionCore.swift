import CarillonProtocol
import Foundation
import NIOCore

/// What the session core asks its shell to do.
enum SessionAction: Sendable {
    /// Open a new signaling socket (any older one is abandoned).
    case openSocket
    /// Send one frame on the current socket.
    case send(SdkSignalFrame)
    /// Close the current socket.
    case closeSocket
    /// Tell the app.
    case event(SessionEvent)
    /// Make a new media connection's local offer and hand it to ``SignalingSessionCore/mediaOfferReady(_:now:)``.
    case prepareMedia
    /// Apply the server's answer to the prepared media connection and connect it.
    case connectMedia(answer: String)
    /// Tear down the media connection, if any.
    case stopMedia
}

/// What the app is told, in order.
enum SessionEvent: Sendable {
    case startConnecting(reconnecting: Bool)
    case started(reconnecting: Bool)
    case dropped
    case cancelledReconnect
    case stopped(MeetingSessionStatusCode)
    case roster(RosterChanges)
    case dataMessages([DataMessage])
    case volumes([VolumeUpdate])
    case signalStrengths([SignalUpdate])
}

/// The client side of a Chime signaling session as a synchronous state machine (sans-IO).
///
/// Fed the session's inputs and the time, it returns ``SessionAction``s. It runs JOIN (JOIN_ACK, then INDEX), then
/// the media step: SUBSCRIBE with the local offer, SUBSCRIBE_ACK with the answer, and the media connection's report
/// that ICE and DTLS completed mean "in the meeting" (all within the 15 s step budget). It pings every 10 s (four missed pongs outside the 10 s grace after a
/// (re)connect mean "reconnect"), maps close codes and status frames to outcomes, reconnects with full-jitter back-off
/// inside the reconnect budget, and leaves with LEAVE/LEAVE_ACK.
///
/// Outcomes (`signaling.md` §1.7, §3.16, §3.17, mapped to the iOS status codes):
///
/// | input | while joining | while in the meeting |
/// |---|---|---|
/// | close 4410 | stop `.audioCallEnded` | stop `.audioServerHungup` |
/// | close 4401, 4403, 4411 | stop `.audioAuthenticationRejected` | same |
/// | close 4409 | stop `.audioCallAtCapacity` | stop `.audioJoinedFromAnotherDevice` (a newer socket took over) |
/// | close 4500-4599, abnormal end, open failure | retry | drop, reconnect |
/// | any other close code | stop `.audioDisconnected` | drop, reconnect |
/// | AUDIO_STATUS 301 / 403 / 409 / 410 / 411 | stop `.audioJoinedFromAnotherDevice` / `.audioAuthenticationRejected` / `.audioCallAtCapacity` / `.audioServerHungup` / `.audioAuthenticationRejected` | same |
/// | AUDIO_STATUS 500 / 503 | retry | drop, reconnect |
/// | AUDIO_STATUS other non-2xx | stop `.audioDisconnected` | same |
/// | error.status 403 / 409 | stop `.audioAuthenticationRejected` / `.audioCallAtCapacity` | same |
/// | error.status other 4xx | stop `.audioDisconnected` | same |
/// | error.status 5xx | retry | drop, reconnect |
///
/// When the reconnect budget is spent: `cancelledReconnect`, then stop `.audioDisconnected`.
struct SignalingSessionCore: Sendable {
    enum Phase: Equatable {
        case idle
        case opening(deadline: NIODeadline)
        case joining(deadline: NIODeadline, gotJoinAck: Bool)
        case connectingMedia(deadline: NIODeadline, subscribed: Bool)
        case inMeeting
        case waitingToRetry(at: NIODeadline)
        case leaving(deadline: NIODeadline)
        case stopped
    }

    static let pingInterval: TimeAmount = .seconds(10)
    static let stepTimeout: TimeAmount = .seconds(15)
    static let connectGrace: TimeAmount = .seconds(10)
    static let missedPongLimit = 4

    let credentials: MeetingSessionCredentials
    /// The meeting's AudioHostUrl, echoed in SUBSCRIBE.
    let audioHost: String
    private(set) var phase: Phase = .idle
    private(set) var roster: RosterTracker
    private var audioMetadata = AudioMetadataTracker()
    private var backoff: ReconnectBackoff
    private let audioSessionId: UInt64
    private var random: @Sendable () -> Double
    private var hasBeenInMeeting = false
    private var muted = false
    private var pingId: UInt32 = 0
    private var pingAnswered = true
    private var missedPongs = 0
    private var nextPing: NIODeadline?
    private var connectedAt: NIODeadline?

    init(
        credentials: MeetingSessionCredentials,
        audioHost: String = "",
        audioSessionId: UInt64,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.credentials = credentials
        self.audioHost = audioHost
        self.roster = RosterTracker(selfAttendeeId: credentials.attendeeId)
        self.backoff = ReconnectBackoff(budget: .milliseconds(Int64(AudioVideoConfiguration.defaultReconnectTimeoutMs)))
        self.audioSessionId = audioSessionId
        self.random = random
    }

    var isInMeeting: Bool { phase == .inMeeting }

    /// The local mute state, kept across reconnects.
    var isMuted: Bool { muted }

    var nextDeadline: NIODeadline? {
        switch phase {
        case .opening(let deadline), .joining(let deadline, _), .connectingMedia(let deadline, _), .leaving(let deadline):
            min(deadline, nextPing ?? deadline)
        case .waitingToRetry(let at): at
        case .inMeeting: nextPing
        case .idle, .stopped: nil
        }
    }

    // MARK: Inputs

    mutating func start(reconnectBudget: TimeAmount, now: SessionTime) -> [SessionAction] {
        guard phase == .idle || phase == .stopped else { return [] }
        hasBeenInMeeting = false
        muted = false
        backoff = ReconnectBackoff(budget: reconnectBudget)
        phase = .opening(deadline: now.monotonic + Self.stepTimeout)
        return [.event(.startConnecting(reconnecting: false)), .openSocket]
    }

    mutating func socketOpened(now: SessionTime) -> [SessionAction] {
        guard case .opening = phase else { return [] }
        phase = .joining(deadline: now.monotonic + Self.stepTimeout, gotJoinAck: false)
        pingId = 0
        missedPongs = 0
        pingAnswered = true
        roster.expectFullRoster()
        var join = SdkJoinFrame()
        join.protocolVersion = 2
        join.flags = UInt32(SdkJoinFlags.hasStreamUpdate.rawValue)
        join.audioSessionID = audioSessionId
        join.wantsCompressedSdp = false
        join.serverSideNetworkAdaption = .default
        join.wantsAllTemporalLayersInIndex = false
        join.disablePeriodicKeyframeRequestOnContentSender = false
        var details = SdkClientDetails()
        details.clientSource = "carillon"
        details.chimeSdkVersion = CarillonVersion.current
        details.platformName = "carillon"
        details.platformVersion = CarillonVersion.current
        details.osName = "linux"
        join.clientDetails = details
        var frame = Self.frame(.join, now)
        frame.join = join
        return [ping(now), .send(frame)]
    }

    mutating func socketFailed(now: SessionTime) -> [SessionAction] {
        socketClosed(code: nil, now: now)
    }

    /// The socket ended; `code` is the close code, nil for an abnormal end (no close frame, connect failure).
    mutating func socketClosed(code: UInt16?, now: SessionTime) -> [SessionAction] {
        switch phase {
        case .leaving:
            phase = .stopped
            return [.stopMedia, .event(.stopped(.ok))]
        case .idle, .stopped, .waitingToRetry:
            return []
        case .connectingMedia:
            // Waiting for SUBSCRIBE_ACK or for media to connect, any close is a failed step worth retrying.
            return retry(now: now, cause: .audioInternalServerError)
        case .opening, .joining:
            guard let code, !(4500...4599).contains(code) else { return retry(now: now, cause: .audioInternalServerError) }
            switch code {
            case 4410: return finish(.audioCallEnded)
            case 4401, 4403, 4411: return finish(.audioAuthenticationRejected)
            case 4409: return finish(.audioCallAtCapacity)
            default: return finish(.audioDisconnected)
            }
        case .inMeeting:
            switch code {
            case 4410: return finish(.audioServerHungup)
            case 4401, 4403, 4411: return finish(.audioAuthenticationRejected)
            case 4409: return finish(.audioJoinedFromAnotherDevice)
            default: return retry(now: now, cause: .audioInternalServerError)
            }
        }
    }

    mutating func received(_ frame: SdkSignalFrame, now: SessionTime) -> [SessionAction] {
        switch phase {
        case .joining, .connectingMedia, .inMeeting, .leaving: break
        default: return []
        }
        if frame.hasError, frame.error.status != 0, let outcome = errorOutcome(frame.error.status, now: now) {
            return outcome
        }
        switch frame.type {
        case .pingPong:
            if frame.pingPong.type == .ping {
                var pong = Self.frame(.pingPong, now)
                pong.pingPong.type = .pong
                pong.pingPong.pingID = frame.pingPong.pingID
                return [.send(pong)]
            }
            if frame.pingPong.pingID == pingId {
                pingAnswered = true
                missedPongs = 0
            }
            return []
        case .joinAck:
            guard case .joining(let deadline, false) = phase else { return [] }
            phase = .joining(deadline: deadline, gotJoinAck: true)
            return []
        case .index:
            guard case .joining(_, true) = phase else { return [] }
            // The first INDEX ends the join; media comes next, in a step of its own.
            phase = .connectingMedia(deadline: now.monotonic + Self.stepTimeout, subscribed: false)
            return [.prepareMedia]
        case .subscribeAck:
            guard case .connectingMedia(let deadline, true) = phase else { return [] }
            let answer = frame.hasSuback ? frame.suback.sdpAnswer : ""
            guard !answer.isEmpty else { return [.closeSocket] + retry(now: now, cause: .audioInternalServerError) }
            phase = .connectingMedia(deadline: deadline, subscribed: true)
            return [.connectMedia(answer: answer)]
        case .audioStreamIDInfo:
            let changes = roster.apply(frame.audioStreamIDInfo.streams)
            return changes.isEmpty ? [] : [.event(.roster(changes))]
        case .audioMetadata:
            let (volumes, signals) = audioMetadata.apply(frame.audioMetadata.attendeeStates, roster: roster)
            return (volumes.isEmpty ? [] : [.event(.volumes(volumes))])
                + (signals.isEmpty ? [] : [.event(.signalStrengths(signals))])
        case .audioStatus:
            return audioStatusOutcome(frame.audioStatus.audioStatus, now: now)
        case .dataMessage:
            let messages = frame.dataMessage.messages.map { payload in
                DataMessage(
                    topic: payload.topic,
                    data: payload.data,
                    senderAttendeeId: payload.senderAttendeeID,
                    senderExternalUserId: payload.senderExternalUserID,
                    timestampMs: payload.ingestTimeNs / 1_000_000,
                    throttled: payload.ingestTimeNs == 0
                )
            }
            return messages.isEmpty ? [] : [.event(.dataMessages(messages))]
        case .leaveAck:
            guard case .leaving = phase else { return [] }
            phase = .stopped
            return [.stopMedia, .closeSocket, .event(.stopped(.ok))]
        default:
            return []
        }
    }

    /// The local offer of a new media connection is ready: SUBSCRIBE with it.
    mutating func mediaOfferReady(_ offer: String, now: SessionTime) -> [SessionAction] {
        guard case .connectingMedia(let deadline, false) = phase else { return [] }
        phase = .connectingMedia(deadline: deadline, subscribed: true)
        var audio = SdkStreamDescriptor()
        audio.mediaType = .audio
        audio.trackLabel = "AmazonChimeExpressAudio"
        audio.streamID = 1
        audio.groupID = 1
        audio.framerate = 15
        audio.maxBitrateKbps = 600
        audio.avgBitrateBps = 400_000
        audio.attendeeID = credentials.attendeeId
        var subscribe = SdkSubscribeFrame()
        subscribe.duplex = .rx
        subscribe.sendStreams = [audio]
        subscribe.sdpOffer = offer
        subscribe.audioHost = audioHost
        subscribe.audioCheckin = false
        subscribe.audioMuted = muted
        var frame = Self.frame(.subscribe, now)
        frame.sub = subscribe
        return [.send(frame)]
    }

    /// The media connection completed ICE and DTLS: the session is in the meeting.
    mutating func mediaConnected(now: SessionTime) -> [SessionAction] {
        guard case .connectingMedia(_, true) = phase else { return [] }
        let reconnecting = hasBeenInMeeting
        phase = .inMeeting
        hasBeenInMeeting = true
        connectedAt = now.monotonic
        backoff.reset()
        var actions: [SessionAction] = [.event(.started(reconnecting: reconnecting))]
        // Mute survives a reconnect: tell the new server side.
        if muted { actions.append(.send(audioControl(now))) }
        return actions
    }

    /// The media connection could not be made or was lost (ICE or DTLS failure, consent expiry, no audio for too
    /// long): reconnect. `cause` is the status reported if reconnecting gives up before the session ever joined.
    mutating func mediaFailed(cause: MeetingSessionStatusCode = .audioInternalServerError, now: SessionTime) -> [SessionAction] {
        switch phase {
        case .connectingMedia, .inMeeting: [.closeSocket] + retry(now: now, cause: cause)
        default: []
        }
    }

    mutating func tick(now: SessionTime) -> [SessionAction] {
        switch phase {
        case .opening(let deadline), .joining(let deadline, _), .connectingMedia(let deadline, _):
            if deadline <= now.monotonic { return [.closeSocket] + retry(now: now, cause: .audioInternalServerError) }
        case .leaving(let deadline):
            if deadline <= now.monotonic {
                phase = .stopped
                return [.stopMedia, .closeSocket, .event(.stopped(.ok))]
            }
        case .waitingToRetry(let at):
            if at <= now.monotonic {
                phase = .opening(deadline: now.monotonic + Self.stepTimeout)
                return [.openSocket]
            }
            return []
        case .idle, .stopped:
            return []
        case .inMeeting:
            break
        }
        guard let due = nextPing, due <= now.monotonic else { return [] }
        if !pingAnswered { missedPongs += 1 }
        let inGrace = connectedAt.map { now.monotonic - $0 < Self.connectGrace } ?? true
        if missedPongs >= Self.missedPongLimit, !inGrace, phase == .inMeeting {
            return [.closeSocket] + retry(now: now, cause: .connectionHealthReconnect)
        }
        return [ping(now)]
    }

    mutating func stop(now: SessionTime) -> [SessionAction] {
        switch phase {
        case .idle, .stopped, .leaving:
            return []
        case .inMeeting, .joining, .connectingMedia:
            phase = .leaving(deadline: now.monotonic + Self.stepTimeout)
            var leave = Self.frame(.leave, now)
            leave.leave = SdkLeaveFrame()
            return [.stopMedia, .send(leave)]
        case .opening, .waitingToRetry:
            phase = .stopped
            return [.stopMedia, .closeSocket, .event(.stopped(.ok))]
        }
    }

    /// Records the mute state and tells the server when in the meeting; false when not in the meeting.
    mutating func setMuted(_ value: Bool, now: SessionTime) -> (accepted: Bool, actions: [SessionAction]) {
        guard phase == .inMeeting else { return (false, []) }
        muted = value
        return (true, [.send(audioControl(now))])
    }

    /// A CLIENT_METRIC frame (sent once a second with the audio measurements); nothing when not in the meeting.
    func clientMetric(_ metrics: SdkClientMetricFrame, now: SessionTime) -> [SessionAction] {
        guard phase == .inMeeting else { return [] }
        var frame = Self.frame(.clientMetric, now)
        frame.clientMetric = metrics
        return [.send(frame)]
    }

    /// A DATA_MESSAGE frame for a validated payload; nil when not in the meeting.
    mutating func dataMessage(topic: String, data: [UInt8], lifetimeMs: Int32, now: SessionTime) -> [SessionAction]? {
        guard phase == .inMeeting else { return nil }
        var payload = SdkDataMessagePayload()
        payload.topic = topic
        payload.data = Data(data)
        if lifetimeMs > 0 { payload.lifetimeMs = UInt32(lifetimeMs) }
        var frame = Self.frame(.dataMessage, now)
        frame.dataMessage.messages = [payload]
        return [.send(frame)]
    }

    // MARK: Outcomes

    private mutating func retry(now: SessionTime, cause: MeetingSessionStatusCode) -> [SessionAction] {
        var actions: [SessionAction] = [.stopMedia]
        if phase == .inMeeting {
            actions.append(.event(.dropped))
            actions.append(.event(.startConnecting(reconnecting: true)))
        }
        nextPing = nil
        guard let at = backoff.nextAttempt(now: now.monotonic, random: random()) else {
            phase = .stopped
            if hasBeenInMeeting { actions.append(.event(.cancelledReconnect)) }
            actions.append(.event(.stopped(hasBeenInMeeting ? .audioDisconnected : cause)))
            return actions
        }
        phase = .waitingToRetry(at: at)
        return actions
    }

    private mutating func finish(_ status: MeetingSessionStatusCode) -> [SessionAction] {
        let wasRetrying = hasBeenInMeeting && phase != .inMeeting
        phase = .stopped
        nextPing = nil
        var actions: [SessionAction] = [.stopMedia, .closeSocket]
        if wasRetrying { actions.append(.event(.cancelledReconnect)) }
        actions.append(.event(.stopped(status)))
        return actions
    }

    private mutating func audioStatusOutcome(_ status: UInt32, now: SessionTime) -> [SessionAction] {
        switch status {
        case 200..<300: return []
        case 301: return finish(.audioJoinedFromAnotherDevice)
        case 302: return []
        case 403, 411: return finish(.audioAuthenticationRejected)
        case 409: return finish(.audioCallAtCapacity)
        case 410: return finish(.audioServerHungup)
        case 500, 503: return [.closeSocket] + retry(now: now, cause: status == 500 ? .audioInternalServerError : .audioServiceUnavailable)
        default: return finish(.audioDisconnected)
        }
    }

    private mutating func errorOutcome(_ status: UInt32, now: SessionTime) -> [SessionAction]? {
        switch status {
        case 200..<300: return nil
        case 403: return finish(.audioAuthenticationRejected)
        case 409: return finish(.audioCallAtCapacity)
        case 400..<500: return finish(.audioDisconnected)
        case 500..<600: return [.closeSocket] + retry(now: now, cause: .audioInternalServerError)
        default: return finish(.unknown)
        }
    }

    // MARK: Frames

    private mutating func ping(_ now: SessionTime) -> SessionAction {
        pingId &+= 1
        pingAnswered = false
        nextPing = now.monotonic + Self.pingInterval
        var frame = Self.frame(.pingPong, now)
        frame.pingPong.type = .ping
        frame.pingPong.pingID = pingId
        return .send(frame)
    }

    private func audioControl(_ now: SessionTime) -> SdkSignalFrame {
        var frame = Self.frame(.audioControl, now)
        frame.audioControl.muted = muted
        return frame
    }

    private static func frame(_ type: SdkSignalFrame.TypeEnum, _ now: SessionTime) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = now.unixMilliseconds
        frame.type = type
        return frame
    }
}
