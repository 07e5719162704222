import CarillonProtocol
import CarillonRTC
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
    /// Make a new media connection's local offer for `plan` and hand it to
    /// ``SignalingSessionCore/mediaOfferReady(_:now:)``.
    case prepareMedia(SessionMediaPlan)
    /// Make a new offer for `plan` on the running media connection (same transport) and hand it to
    /// ``SignalingSessionCore/mediaOfferReady(_:now:)``.
    case renegotiateMedia(SessionMediaPlan)
    /// Apply the server's answer to the prepared media connection and connect it.
    case connectMedia(answer: String, video: SessionVideoNegotiation)
    /// Apply the server's answer to a renegotiation of the running media connection.
    case applyAnswer(answer: String, video: SessionVideoNegotiation)
    /// Tear down the media connection, if any.
    case stopMedia
    /// The received streams whose sender stopped sending, by stream id (INDEX `paused_at_source_ids`): their tiles
    /// show `pausedForPoorConnection` until frames come again.
    case setVideoPausedAtSource(Set<UInt32>)
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
    /// Attendees whose video became available (in INDEX) or went away.
    case remoteVideoSources(available: [String], unavailable: [String])
    /// The video side started: `.ok`, or `.videoAtCapacityViewOnly` when the server refused this attendee's video.
    case videoStarted(MeetingSessionStatusCode)
    /// Whether this attendee may start sending video changed (INDEX `at_capacity`).
    case cameraSendAvailability(Bool)
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

    // Video (`signaling.md` §3.6-§3.11).
    private var wantsToSendVideo = false
    private var sendMaxBitrateKbps: UInt32 = 0
    /// Whether the camera is sent with simulcast (`LocalVideoConfiguration.simulcastEnabled`, never content).
    private var sendSimulcast = false
    /// Whether the meeting's video maximum is FHD (the simulcast targets are higher).
    private var sendHighResolution = false
    /// The local video source's size, once a frame told it (the simulcast layers' sizes in SUBSCRIBE).
    private var videoSourceSize: (width: Int, height: Int) = (0, 0)
    /// INDEX `num_participants`, 0 until known.
    private var participantCount = 0
    /// The server's allocation of each sent video stream (SUBSCRIBE_ACK `allocations`, in `send_streams` order).
    private var videoAllocations: [SdkStreamAllocation] = []
    private var wantsToReceiveVideo = false
    /// The newest INDEX's sources.
    private(set) var videoSources: [SdkStreamDescriptor] = []
    /// The source and owner of every stream of the newest INDEX and of every stream a receive m-line of the applied or
    /// offered plan carries (a layer the sender turned off leaves INDEX while its m-line still carries it): a new
    /// layer of the same source takes over its m-line, and its video keeps its id.
    private var streamOwners: [UInt32: (groupId: UInt32, attendeeId: String)] = [:]
    private var atCapacity = false
    /// The plan of the media connection's last applied answer.
    private(set) var mediaPlan = SessionMediaPlan()
    /// The plan of the offer in flight, if one is.
    private var offeredPlan: SessionMediaPlan?
    private var renegotiationPending = false
    /// A renegotiation's SUBSCRIBE unanswered by then means the server lost it: the session reconnects.
    private var renegotiationDeadline: NIODeadline?
    /// The server's allocation for this attendee's video, re-sent in later SUBSCRIBEs.
    private var videoAllocation: SdkStreamAllocation?
    /// Attendees whose video was announced to the app as available.
    private var availableVideoAttendees: Set<String> = []
    /// The newest INDEX's `paused_at_source_ids`.
    private var pausedAtSourceIds: Set<UInt32> = []
    private var videoStartedReported = false
    /// The downlink adaptation mode the server's JOIN_ACK decided (`default_server_side_network_adaption`).
    private(set) var adaptation = SdkServerSideNetworkAdaption.default
    /// The app's subscriptions by attendee id (`updateVideoSourceSubscriptions`); nil until it sets any, when every
    /// source is received automatically (up to 25 cameras).
    private(set) var videoSubscriptions: [String: SessionMediaPlan.ReceivePreference]?
    /// Sources the server paused for this receiver (S→C PAUSE `group_ids`, mode 4).
    private var serverPausedGroups: Set<UInt32> = []
    /// The paused stream ids last handed to the shell (``SessionAction/setVideoPausedAtSource(_:)``).
    private var reportedPausedStreamIds: Set<UInt32> = []

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

    /// The local offer of a new media connection, or of a renegotiation, is ready: SUBSCRIBE with it.
    mutating func mediaOfferReady(_ offer: String, now: SessionTime) -> [SessionAction] {
        guard let plan = offeredPlan else { return [] }
        if case .connectingMedia(let deadline, false) = phase {
            phase = .connectingMedia(deadline: deadline, subscribed: true)
        } else if phase != .inMeeting {
            return []
        }
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
        subscribe.duplex = plan.sendsVideo ? .duplex : .rx
        subscribe.sendStreams = [audio]
        if plan.sendsVideo, !plan.sendLayers.isEmpty {
            // Simulcast (`signaling.md` §4.9): one entry per layer in rid order, disabled layers at 0 kbps.
            for (index, layer) in plan.sendLayers.enumerated() {
                var video = SdkStreamDescriptor()
                video.mediaType = .video
                video.trackLabel = ""
                if index < videoAllocations.count {
                    video.streamID = videoAllocations[index].streamID
                    video.groupID = videoAllocations[index].groupID
                }
                video.framerate = 15
                video.maxBitrateKbps = layer.maxBitrateKbps
                if layer.width > 0, layer.height > 0 {
                    video.width = UInt32(layer.width)
                    video.height = UInt32(layer.height)
                }
                video.attendeeID = credentials.attendeeId
                subscribe.sendStreams.append(video)
            }
        } else if plan.sendsVideo {
            var video = SdkStreamDescriptor()
            video.mediaType = .video
            video.trackLabel = "AmazonChimeExpressVideo"
            video.streamID = videoAllocation?.streamID ?? 2
            video.groupID = videoAllocation?.groupID ?? 2
            video.framerate = 15
            video.maxBitrateKbps = sendMaxBitrateKbps > 0 ? sendMaxBitrateKbps : 1_400
            video.attendeeID = credentials.attendeeId
            subscribe.sendStreams.append(video)
        }
        subscribe.receiveStreamIds = plan.receiveStreamIds
        if adaptation == .bandwidthProbing || adaptation == .bandwidthProbingAndVideoQualityAdaption {
            subscribe.videoSubscriptionConfiguration = videoSubscriptionConfigurations(plan)
        }
        subscribe.sdpOffer = offer
        subscribe.audioHost = audioHost
        subscribe.audioCheckin = false
        subscribe.audioMuted = muted
        var frame = Self.frame(.subscribe, now)
        frame.sub = subscribe
        if phase == .inMeeting { renegotiationDeadline = now.monotonic + Self.stepTimeout }
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
        if !videoStartedReported {
            videoStartedReported = true
            actions.append(.event(.videoStarted(.ok)))
        }
        // Mute survives a reconnect: tell the new server side.
        if muted { actions.append(.send(audioControl(now))) }
        // What changed while connecting (INDEX, local video) is offered now.
        return actions + renegotiateIfNeeded()
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

    // MARK: Video

    /// The app starts or stops sending local video (`maxBitrateKbps` 0: the default cap); renegotiates in the meeting.
    /// With `simulcast` the camera is sent in the layers of ``SimulcastUplinkPolicy`` (`highResolution`: an FHD
    /// meeting's targets), re-chosen when INDEX changes the meeting's participants or publishers.
    mutating func setSendingVideo(_ sending: Bool, maxBitrateKbps: UInt32 = 0, simulcast: Bool = false,
                                  highResolution: Bool = false, now: SessionTime) -> [SessionAction] {
        wantsToSendVideo = sending
        sendMaxBitrateKbps = maxBitrateKbps
        sendSimulcast = simulcast
        sendHighResolution = highResolution
        return renegotiateIfNeeded()
    }

    /// The local video source delivers pictures of this size: with simulcast, the layers' sizes go to the server
    /// in a new SUBSCRIBE when they change.
    mutating func setVideoSourceSize(width: Int, height: Int, now: SessionTime) -> [SessionAction] {
        guard videoSourceSize != (width, height) else { return [] }
        videoSourceSize = (width, height)
        return renegotiateIfNeeded()
    }

    /// The camera's simulcast layers now (empty without simulcast): the table of `policies.md` §3.1 from the
    /// participants (the roster's attendees but content shares; INDEX `num_participants` until the roster came) and
    /// the publishers (the remote attendees with video in INDEX, plus this one).
    private var desiredSendLayers: [SimulcastLayerSetting] {
        guard wantsToSendVideo, sendSimulcast else { return [] }
        let present = roster.attendees.count { !$0.attendeeId.hasSuffix("#content") }
        let publishers = Set(videoSources.map(\.attendeeID)).count + 1
        return SimulcastUplinkPolicy.layers(participants: present > 0 ? present : participantCount, publishers: publishers,
                                            highResolution: sendHighResolution, width: videoSourceSize.width,
                                            height: videoSourceSize.height)
    }

    /// The app starts or stops receiving remote video; renegotiates in the meeting.
    mutating func setReceivingVideo(_ receiving: Bool, now: SessionTime) -> [SessionAction] {
        wantsToReceiveVideo = receiving
        return renegotiateIfNeeded()
    }

    /// The app's `updateVideoSourceSubscriptions`: from the first call on, exactly the subscribed attendees' videos
    /// are received, with their preferences; renegotiates in the meeting when that changes what is received or the
    /// preferences sent.
    mutating func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String],
                                           now: SessionTime) -> [SessionAction] {
        var subscriptions = videoSubscriptions ?? [:]
        for attendeeId in removed { subscriptions[attendeeId] = nil }
        subscriptions.merge(addedOrUpdated) { _, new in new }
        videoSubscriptions = subscriptions
        return renegotiateIfNeeded()
    }

    /// The SUBSCRIBE `video_subscription_configuration` of `plan`: one per receive m-line with a preference.
    private func videoSubscriptionConfigurations(_ plan: SessionMediaPlan) -> [SdkVideoSubscriptionConfiguration] {
        plan.receiveSlots.enumerated().compactMap { index, streamId in
            guard streamId != 0, let preference = plan.receivePreferences[streamId],
                  let source = videoSources.first(where: { $0.streamID == streamId }) else { return nil }
            var configuration = SdkVideoSubscriptionConfiguration()
            configuration.mid = SessionMediaPlan.receiveMid(index)
            configuration.attendeeID = source.attendeeID
            configuration.groupID = source.groupID
            configuration.priority = preference.priority
            configuration.targetBitrateKbps = preference.targetBitrateKbps
            configuration.qualityAdaptationPreference = .balanced
            return configuration
        }
    }

    /// The received streams to show paused, when that changed: stopped at their sender (INDEX) or paused by the
    /// server (PAUSE).
    private mutating func pausedUpdate() -> [SessionAction] {
        let paused = pausedAtSourceIds.union(videoSources.filter { serverPausedGroups.contains($0.groupID) }.map(\.streamID))
        guard paused != reportedPausedStreamIds else { return [] }
        reportedPausedStreamIds = paused
        return [.setVideoPausedAtSource(paused)]
    }

    /// PAUSE or RESUME the stream received of source `groupId` (C→S, by stream id); nothing when not in the meeting or
    /// not receiving that source.
    func setRemoteVideoPaused(_ paused: Bool, groupId: UInt32, now: SessionTime) -> [SessionAction] {
        guard phase == .inMeeting,
              let streamId = mediaPlan.receiveSlots.first(where: { $0 != 0 && streamOwners[$0]?.groupId == groupId })
        else { return [] }
        var frame = Self.frame(paused ? .pause : .resume, now)
        frame.pause.streamIds = [streamId]
        return [.send(frame)]
    }

    /// The attendee a stream of the newest INDEX (or of a receive m-line) belongs to.
    func attendeeId(ofStream streamId: UInt32) -> String? {
        streamOwners[streamId]?.attendeeId
    }

    /// Takes a new INDEX: the sources, and the app's news about who has video and whether it may send.
    private mutating func indexReceived(_ index: SdkIndexFrame) -> [SessionAction] {
        // The client drops its own content share; the server never lists its own camera.
        videoSources = index.sources.filter {
            $0.mediaType == .video && $0.attendeeID != credentials.attendeeId
                && $0.attendeeID != credentials.attendeeId + "#content"
        }
        var owners: [UInt32: (groupId: UInt32, attendeeId: String)] = [:]
        for streamId in mediaPlan.receiveSlots + (offeredPlan?.receiveSlots ?? []) where streamId != 0 {
            owners[streamId] = streamOwners[streamId]
        }
        for source in videoSources { owners[source.streamID] = (source.groupID, source.attendeeID) }
        streamOwners = owners
        var actions: [SessionAction] = []
        let attendees = Set(videoSources.map(\.attendeeID))
        let available = attendees.subtracting(availableVideoAttendees).sorted()
        let unavailable = availableVideoAttendees.subtracting(attendees).sorted()
        availableVideoAttendees = attendees
        // Sources that became unavailable are unsubscribed (the app subscribes again to the new object if they return).
        if var subscriptions = videoSubscriptions {
            for attendeeId in unavailable { subscriptions[attendeeId] = nil }
            videoSubscriptions = subscriptions
        }
        serverPausedGroups.formIntersection(videoSources.map(\.groupID))
        if !available.isEmpty || !unavailable.isEmpty {
            actions.append(.event(.remoteVideoSources(available: available, unavailable: unavailable)))
        }
        if index.atCapacity != atCapacity {
            atCapacity = index.atCapacity
            actions.append(.event(.cameraSendAvailability(!atCapacity)))
        }
        participantCount = Int(index.numParticipants)
        pausedAtSourceIds = Set(index.pausedAtSourceIds)
        actions += pausedUpdate()
        return actions
    }

    /// The plan the session wants now, keeping the receive slots of `current` where their stream is still wanted:
    /// when receiving, the best stream of every source the app subscribed to, or while it set no subscriptions of
    /// every source (up to the limit of 25 cameras, plus content shares), else none. In adaptation modes 3 and 4 the
    /// plan carries each stream's preference.
    private func desiredPlan(from current: SessionMediaPlan) -> SessionMediaPlan {
        var bestOfGroup: [UInt32: SdkStreamDescriptor] = [:]
        for source in videoSources {
            if let best = bestOfGroup[source.groupID], best.maxBitrateKbps >= source.maxBitrateKbps { continue }
            bestOfGroup[source.groupID] = source
        }
        // Content shares (`<attendeeId>#content`) do not count toward the limit of 25 tiles.
        let best = bestOfGroup.values.sorted { $0.groupID < $1.groupID }
        let wanted: [UInt32]
        if let subscriptions = videoSubscriptions {
            wanted = wantsToReceiveVideo ? best.filter { subscriptions[$0.attendeeID] != nil }.map(\.streamID) : []
        } else {
            let content = best.filter { $0.attendeeID.hasSuffix("#content") }.map(\.streamID)
            let cameras = best.filter { !$0.attendeeID.hasSuffix("#content") }.map(\.streamID).prefix(25)
            wanted = wantsToReceiveVideo ? content + cameras : []
        }
        // A slot whose stream is no longer wanted takes the wanted stream of the same source (the sender changed its
        // layers): the m-line, its SSRC and the video's id stay.
        let wantedOfGroup = Dictionary(best.filter { wanted.contains($0.streamID) }.map { ($0.groupID, $0.streamID) },
                                       uniquingKeysWith: { first, _ in first })
        var slots: [UInt32] = []
        for streamId in current.receiveSlots {
            if wanted.contains(streamId) || streamId == 0 {
                slots.append(streamId)
            } else if let group = streamOwners[streamId]?.groupId, let successor = wantedOfGroup[group],
                      !current.receiveSlots.contains(successor), !slots.contains(successor) {
                slots.append(successor)
            } else {
                slots.append(0)
            }
        }
        for streamId in wanted where !slots.contains(streamId) {
            if let empty = slots.firstIndex(of: 0) { slots[empty] = streamId } else { slots.append(streamId) }
        }
        var preferences: [UInt32: SessionMediaPlan.ReceivePreference] = [:]
        if adaptation == .bandwidthProbing || adaptation == .bandwidthProbingAndVideoQualityAdaption {
            let automatic = SessionMediaPlan.ReceivePreference.automatic(sources: Set(best.map(\.attendeeID)).count)
            for source in best where wanted.contains(source.streamID) {
                preferences[source.streamID] = videoSubscriptions?[source.attendeeID] ?? automatic
            }
        }
        return SessionMediaPlan(sendsVideo: wantsToSendVideo, sendLayers: desiredSendLayers, receiveSlots: slots,
                                receivePreferences: preferences)
    }

    /// Offers again on the running connection when what the session wants differs from what it has; while an
    /// offer is in flight, once its answer came.
    private mutating func renegotiateIfNeeded() -> [SessionAction] {
        guard phase == .inMeeting else { return [] }
        guard offeredPlan == nil else {
            renegotiationPending = true
            return []
        }
        let next = desiredPlan(from: mediaPlan)
        guard next != mediaPlan else { return [] }
        offeredPlan = next
        return [.renegotiateMedia(next)]
    }

    /// What SUBSCRIBE_ACK says about video: the allocation of this attendee's camera and the stream on each
    /// receive m-line.
    private mutating func videoNegotiation(_ frame: SdkSignalFrame, plan: SessionMediaPlan) -> SessionVideoNegotiation {
        if let allocation = frame.suback.allocations.first { videoAllocation = allocation }
        if !frame.suback.allocations.isEmpty { videoAllocations = frame.suback.allocations }
        let tracks = frame.suback.tracks.compactMap { track -> SessionVideoNegotiation.Track? in
            guard track.streamID != 0, track.trackLabel.hasPrefix("v_") else { return nil }
            let mid = String(track.trackLabel.dropFirst(2))
            let owner = streamOwners[track.streamID]
            return SessionVideoNegotiation.Track(mid: mid, streamId: track.streamID, groupId: owner?.groupId ?? 0,
                                                 ssrc: track.ssrc, attendeeId: owner?.attendeeId ?? "")
        }
        let refused = frame.hasError && frame.error.status == 206
        return SessionVideoNegotiation(plan: plan, tracks: tracks, sendingRefused: refused,
                                       sendStreamId: videoAllocation?.streamID ?? 0)
    }

    /// A SUBSCRIBE_ACK with status 206: the meeting has all the video senders it takes; the app is told.
    private mutating func videoRefusal(_ frame: SdkSignalFrame) -> [SessionAction] {
        guard frame.hasError, frame.error.status == 206 else { return [] }
        wantsToSendVideo = false
        return [.event(.videoStarted(.videoAtCapacityViewOnly))]
    }

    private mutating func resetMediaPlan() {
        mediaPlan = SessionMediaPlan()
        offeredPlan = nil
        renegotiationPending = false
        renegotiationDeadline = nil
    }

    // MARK: Outcomes

    private mutating func retry(now: SessionTime, cause: MeetingSessionStatusCode) -> [SessionAction] {
        resetMediaPlan()
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
        resetMediaPlan()
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
