import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

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
    var phase: Phase = .idle
    var roster: RosterTracker
    var audioMetadata = AudioMetadataTracker()
    var backoff: ReconnectBackoff
    let audioSessionId: UInt64
    var random: @Sendable () -> Double
    var hasBeenInMeeting = false
    var muted = false
    var pingId: UInt32 = 0
    var pingAnswered = true
    var missedPongs = 0
    var nextPing: NIODeadline?
    var connectedAt: NIODeadline?

    // Video (`signaling.md` §3.6-§3.11).
    var wantsToSendVideo = false
    var sendMaxBitrateKbps: UInt32 = 0
    /// Whether the camera is sent with simulcast (`LocalVideoConfiguration.simulcastEnabled`, never content).
    var sendSimulcast = false
    /// Whether the meeting's video maximum is FHD (the simulcast targets are higher).
    var sendHighResolution = false
    /// The local video source's size, once a frame told it (the simulcast layers' sizes in SUBSCRIBE).
    var videoSourceSize: (width: Int, height: Int) = (0, 0)
    /// INDEX `num_participants`, 0 until known.
    var participantCount = 0
    /// The server's allocation of each sent video stream (SUBSCRIBE_ACK `allocations`, in `send_streams` order).
    var videoAllocations: [SdkStreamAllocation] = []
    var wantsToReceiveVideo = false
    /// The newest INDEX's sources.
    var videoSources: [SdkStreamDescriptor] = []
    /// The source and owner of every stream of the newest INDEX and of every stream a receive m-line of the applied or
    /// offered plan carries (a layer the sender turned off leaves INDEX while its m-line still carries it): a new
    /// layer of the same source takes over its m-line, and its video keeps its id.
    var streamOwners: [UInt32: (groupId: UInt32, attendeeId: String)] = [:]
    var atCapacity = false
    /// The plan of the media connection's last applied answer.
    var mediaPlan = SessionMediaPlan()
    /// The plan of the offer in flight, if one is.
    var offeredPlan: SessionMediaPlan?
    var renegotiationPending = false
    /// A renegotiation's SUBSCRIBE unanswered by then means the server lost it: the session reconnects.
    var renegotiationDeadline: NIODeadline?
    /// The server's allocation for this attendee's video, re-sent in later SUBSCRIBEs.
    var videoAllocation: SdkStreamAllocation?
    /// Attendees whose video was announced to the app as available.
    var availableVideoAttendees: Set<String> = []
    /// The newest INDEX's `paused_at_source_ids`.
    var pausedAtSourceIds: Set<UInt32> = []
    var videoStartedReported = false
    /// The downlink adaptation mode the server's JOIN_ACK decided (`default_server_side_network_adaption`).
    var adaptation = SdkServerSideNetworkAdaption.default
    /// The app's subscriptions by attendee id (`updateVideoSourceSubscriptions`); nil until it sets any, when every
    /// source is received automatically (up to 25 cameras).
    var videoSubscriptions: [String: SessionMediaPlan.ReceivePreference]?
    /// Sources the server paused for this receiver (S→C PAUSE `group_ids`, mode 4).
    var serverPausedGroups: Set<UInt32> = []
    /// The paused stream ids last handed to the shell (``SessionAction/setVideoPausedAtSource(_:)``).
    var reportedPausedStreamIds: Set<UInt32> = []

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
        case .inMeeting: nextPing.earlier(renegotiationDeadline)
        case .idle, .stopped: nil
        }
    }

    // MARK: Inputs

    mutating func start(reconnectBudget: TimeAmount, now: SessionTime) -> [SessionAction] {
        guard phase == .idle || phase == .stopped else { return [] }
        hasBeenInMeeting = false
        videoStartedReported = false
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
        // Server-side adaptation is asked for; the JOIN_ACK decides.
        join.serverSideNetworkAdaption = .bandwidthProbingAndVideoQualityAdaption
        join.supportedServerSideNetworkAdaptions = [.none, .bandwidthProbing, .bandwidthProbingAndVideoQualityAdaption]
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

    /// The socket's TLS handshake failed (an untrusted, expired or misnamed certificate): a retry would meet the
    /// same certificate, so the session stops with `audioServiceUnavailable`, as Chime does for a service it cannot
    /// use, whether joining or reconnecting.
    mutating func socketFailedTLS(now: SessionTime) -> [SessionAction] {
        switch phase {
        case .leaving:
            phase = .stopped
            return [.stopMedia, .event(.stopped(.ok))]
        case .idle, .stopped, .waitingToRetry:
            return []
        case .opening, .joining, .connectingMedia, .inMeeting:
            return finish(.audioServiceUnavailable)
        }
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
            // An absent field reads as DEFAULT (Chime's client does the same).
            adaptation = frame.hasJoinack && frame.joinack.hasDefaultServerSideNetworkAdaption
                ? frame.joinack.defaultServerSideNetworkAdaption : .default
            serverPausedGroups = []
            return []
        case .pause, .resume:
            // S→C: the server paused or resumed forwarding sources (mode 4); their tiles show poor connection.
            guard !frame.pause.groupIds.isEmpty else { return [] }
            if frame.type == .pause {
                serverPausedGroups.formUnion(frame.pause.groupIds)
            } else {
                serverPausedGroups.subtract(frame.pause.groupIds)
            }
            return pausedUpdate()
        case .index:
            var actions = indexReceived(frame.index)
            guard case .joining(_, true) = phase else { return actions + renegotiateIfNeeded() }
            // The first INDEX ends the join; media comes next, in a step of its own.
            phase = .connectingMedia(deadline: now.monotonic + Self.stepTimeout, subscribed: false)
            let plan = desiredPlan(from: SessionMediaPlan())
            offeredPlan = plan
            actions.append(.prepareMedia(plan))
            return actions
        case .subscribeAck:
            let answer = frame.hasSuback ? frame.suback.sdpAnswer : ""
            if phase == .inMeeting, let plan = offeredPlan {
                // A renegotiation's answer.
                guard !answer.isEmpty else { return [.closeSocket] + retry(now: now, cause: .audioInternalServerError) }
                offeredPlan = nil
                renegotiationDeadline = nil
                mediaPlan = plan
                var actions: [SessionAction] = [.applyAnswer(answer: answer, video: videoNegotiation(frame, plan: plan))]
                actions += videoRefusal(frame)
                if renegotiationPending {
                    renegotiationPending = false
                    actions += renegotiateIfNeeded()
                }
                return actions
            }
            guard case .connectingMedia(let deadline, true) = phase, let plan = offeredPlan else { return [] }
            guard !answer.isEmpty else { return [.closeSocket] + retry(now: now, cause: .audioInternalServerError) }
            phase = .connectingMedia(deadline: deadline, subscribed: true)
            offeredPlan = nil
            mediaPlan = plan
            return [.connectMedia(answer: answer, video: videoNegotiation(frame, plan: plan))] + videoRefusal(frame)
        case .audioStreamIDInfo:
            let changes = roster.apply(frame.audioStreamIDInfo.streams)
            // Who is present decides the camera's simulcast layers.
            return changes.isEmpty ? [] : [.event(.roster(changes))] + renegotiateIfNeeded()
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
            if let deadline = renegotiationDeadline, deadline <= now.monotonic {
                return [.closeSocket] + retry(now: now, cause: .audioInternalServerError)
            }
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
    /// Mutes or unmutes from `start` on: in the meeting the server is told at once (AUDIO_CONTROL); before that the
    /// choice rides on SUBSCRIBE and on the AUDIO_CONTROL sent when media connects, so an app can join muted.
    mutating func setMuted(_ value: Bool, now: SessionTime) -> (accepted: Bool, actions: [SessionAction]) {
        switch phase {
        case .idle, .stopped, .leaving: return (false, [])
        case .inMeeting:
            muted = value
            return (true, [.send(audioControl(now))])
        case .opening, .joining, .connectingMedia, .waitingToRetry:
            muted = value
            return (true, [])
        }
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
}
