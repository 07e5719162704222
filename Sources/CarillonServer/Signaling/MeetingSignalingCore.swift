import CarillonProtocol
import NIOCore

/// The signaling state of one meeting as a synchronous state machine (sans-IO).
///
/// It is fed connections that have already been authenticated, the frames they send, their disconnections and the
/// passing of time, and answers with ``MeetingSignalingOutput`` values: frames to send and sockets to close. It owns
/// the roster (one audio stream id per attendee session), mute state, the data-message buffer and throttle, and
/// the rules of `signaling.md` for JOIN, LEAVE, reconnects, drops and the end of a meeting.
///
/// Threading: not thread-safe; one owner (the meeting's event loop) drives it.
public struct MeetingSignalingCore: Sendable {
    /// Tunables, with the values of the specs as defaults.
    public struct Configuration: Sendable {
        /// How long an attendee whose socket vanished without LEAVE may reconnect before others see it dropped.
        public var dropGrace: TimeAmount = .seconds(5)
        /// A socket that sends nothing for this long is closed (clients PING every 10 s).
        public var idleTimeout: TimeAmount = .seconds(40)
        /// A socket that has not joined this long after it opened is closed with ``SignalingCloseCode/idle`` (clients
        /// send JOIN as soon as the socket opens); an idle pre-join socket holds a descriptor and nothing else.
        public var joinTimeout: TimeAmount = .seconds(10)
        /// Data messages kept for replay.
        public var bufferCapacity = 1024
        /// Longest replay lifetime of a data message.
        public var maximumMessageLifetime: TimeAmount = .minutes(5)
        /// Burst of the per-meeting data-message throttle (Chime's soft limit, `policies.md` §4).
        ///
        /// Shared fairly: each session has its own share, half the meeting's burst and rate, and takes from the
        /// meeting's bucket beyond its share only while that bucket keeps a quarter of its burst for the others. So
        /// one sender alone still gets the meeting's whole rate (its share plus what the bucket refills above the
        /// reserve) but a burst of 150 rather than 200, and a bystander's messages go through while another floods
        /// (with one bucket, a flooder took it all and the bystander's messages came back throttled).
        public var throttleBurst: Double = 200
        /// Refill rate of the per-meeting data-message throttle, messages per second.
        public var throttleRate: Double = 100
        /// Largest data-message payload accepted, in bytes.
        public var maximumPayloadBytes = 2048
        /// Most data messages one DATA_MESSAGE frame may carry (Chime's clients send one per frame); a frame with more
        /// is refused whole, with one warning, and nothing of it is relayed.
        public var maximumDataMessagesPerFrame = 16
        /// The hard data-message limit per attendee session (`policies.md` §4), messages per second: a session whose
        /// message would go past it (or past the meeting's) is closed with ``SignalingCloseCode/tooManyRequests`` and
        /// the frame is dropped. The soft throttle returns messages long before a client that respects it gets here.
        public var attendeeHardRate: Double = 200
        /// The burst of ``attendeeHardRate``.
        public var attendeeHardBurst: Double = 2_000
        /// The hard data-message limit per meeting, messages per second (see ``attendeeHardRate``).
        public var meetingHardRate: Double = 500
        /// The burst of ``meetingHardRate``.
        public var meetingHardBurst: Double = 10_000
        /// Most frames of any kind a session may send per second (and their burst): a client sends a PING every 10 s,
        /// a CLIENT_METRIC a second and data messages within the hard limit, far below; past it the session is closed
        /// with ``SignalingCloseCode/tooManyRequests``, so no kind of frame can keep a meeting's loop busy.
        public var framesPerSecond: Double = 300
        /// The burst of ``framesPerSecond``.
        public var frameBurst: Double = 3_000
        /// Most video streams one SUBSCRIBE may announce (`send_streams`: a simulcast camera has three layers); every
        /// other attendee's INDEX lists them. A SUBSCRIBE with more is refused with status 400 and changes nothing.
        public var maximumVideoSendStreams = 3
        /// Most streams one SUBSCRIBE may receive (`receive_stream_ids`: 25 cameras, two content shares and the camera
        /// m-line fit well within it); a SUBSCRIBE with more is refused like one that sends too many.
        public var maximumReceiveStreams = 64
        /// Most attendee sessions that may send camera video at once (Chime's limit); one more is refused with 206.
        /// Content shares do not count.
        public var maximumVideoSenders = 25
        /// Most content shares (`<attendeeId>#content` sessions) a meeting carries at once; one more is refused at
        /// JOIN with `AUDIO_STATUS 409` and close code 4409 (at capacity). A second share of the same attendee
        /// replaces its first, as any second socket of an attendee does.
        public var maximumContentShares = 2
        /// How often a content share is asked for a key frame (unless its JOIN disabled it).
        public var contentKeyFrameInterval: TimeAmount = .seconds(10)
        /// Whether a client asking for server-side adaptation (mode 4) gets it; when false JOIN_ACK answers NONE
        /// (client-side choice; the router forwards what is asked and holds publishers to receivers' REMB shares).
        public var serverSideAdaptation = true

        /// The defaults of the specs.
        public init() {}
    }

    private struct Connection {
        let identity: AttendeeIdentity
        var joined = false
        var left = false
        var lastActivity: NIODeadline
        /// When the socket was accepted (``Configuration/joinTimeout`` counts from here).
        let openedAt: NIODeadline
        /// What the session may send and receive (its attendee's capabilities).
        var permissions = AttendeeMediaPermissions.all
        /// JOIN's `disable_periodic_keyframe_request_on_content_sender`.
        var periodicKeyFramesDisabled = false
        /// The downlink adaptation mode JOIN_ACK gave the session (`default_server_side_network_adaption`).
        var adaptation = SdkServerSideNetworkAdaption.default
        /// The receiver's latest downlink estimate (mode 4), kbps: every BITRATES it gets carries it.
        var downlinkEstimateKbps: UInt32?
        /// The session's hard data-message limit (``Configuration/attendeeHardRate``), once it has sent one.
        var dataMessageLimit: TokenBucket?
        /// The session's share of the meeting's soft throttle (``Configuration/throttleBurst``), once it has sent one.
        var throttleShare: TokenBucket?
        /// The session's frame limit (``Configuration/framesPerSecond``), once it has sent a frame.
        var frameLimit: TokenBucket?
    }

    private struct Participant {
        let identity: AttendeeIdentity
        var streamId: UInt32
        var muted: Bool
        var audioSessionId: UInt64
        /// nil while the socket is gone and the attendee may still reconnect.
        var connection: SignalingConnectionID?
        var dropDeadline: NIODeadline?
        /// Wall clock of its first join in this room (a reconnect keeps it), and of the loss of its socket while it
        /// may reconnect: the `since` of ``LiveAttendeeState``.
        var joinedAt: Int64
        var disconnectedAt: Int64?
    }

    /// One encoding a video publication announced in SUBSCRIBE `send_streams`.
    private struct VideoLayer: Equatable {
        var streamId: UInt32
        var maxBitrateKbps: UInt32
        var framerate: UInt32
        var trackLabel: String
        /// The encoded size the sender announced (0 when unknown).
        var width: UInt32 = 0
        var height: UInt32 = 0
    }

    /// One attendee session's camera (or content) publication: a source (`group_id`) and its encodings.
    private struct VideoPublication: Equatable {
        let identity: AttendeeIdentity
        let groupId: UInt32
        var layers: [VideoLayer]
        /// The media stopped arriving (the router's report): listed in INDEX `paused_at_source_ids`.
        var pausedAtSource = false
    }

    /// What a SUBSCRIBE asked for the session's own video, applied when its answer succeeds.
    private enum PendingVideo {
        case publish(VideoPublication)
        case stop
        case refused
    }

    /// The meeting this core serves.
    public let meetingId: String
    private let configuration: Configuration
    private var connections: [SignalingConnectionID: Connection] = [:]
    private var participants: [String: Participant] = [:]
    private var nextStreamId: UInt32 = 1
    private var publications: [SignalingConnectionID: VideoPublication] = [:]
    /// The latest measured rates of the meeting's video streams, for BITRATES.
    private var latestBitrates: [SdkBitrate] = []
    private var pendingVideo: [SignalingConnectionID: PendingVideo] = [:]
    private var nextVideoStreamId: UInt32 = 1
    private var nextGroupId: UInt32 = 1
    private var buffer: DataMessageBuffer
    private var throttle: TokenBucket
    /// The meeting's hard data-message limit (``Configuration/meetingHardRate``).
    private var dataMessageLimit: TokenBucket
    private var lastIngestNanoseconds: Int64 = 0
    private var ended = false
    /// How each attendee that was here and is gone went, and when (wall clock): at most one entry per attendee id
    /// that ever joined, and a meeting admits a bounded number of attendees (the control API's limit).
    private var departures: [String: (identity: AttendeeIdentity, presence: LiveAttendeeState.Presence, at: Int64)] = [:]

    /// Creates the core of an empty meeting.
    public init(meetingId: String, configuration: Configuration = Configuration()) {
        self.meetingId = meetingId
        self.configuration = configuration
        self.buffer = DataMessageBuffer(
            capacity: configuration.bufferCapacity,
            maximumLifetime: configuration.maximumMessageLifetime
        )
        self.throttle = TokenBucket(capacity: configuration.throttleBurst, refillPerSecond: configuration.throttleRate)
        self.dataMessageLimit = TokenBucket(capacity: configuration.meetingHardBurst, refillPerSecond: configuration.meetingHardRate)
    }

    // MARK: - Queries

    /// Whether the meeting has neither connections, attendees waiting to reconnect, nor messages to replay.
    public mutating func isIdle(now: NIODeadline) -> Bool {
        connections.isEmpty && participants.isEmpty && buffer.liveMessages(now: now).isEmpty
    }

    /// Attendee ids currently in the roster (connected or within their reconnect grace).
    public var presentAttendeeIds: Set<String> { Set(participants.keys) }

    /// Whether the meeting has been ended by ``endMeeting(now:)``.
    public var hasEnded: Bool { ended }

    /// When ``tick(now:)`` next needs to run, if ever.
    public var nextDeadline: NIODeadline? {
        let drops = participants.values.compactMap(\.dropDeadline)
        let idles = connections.values.map(closeDeadline)
        return (drops + idles).min()
    }

    /// When a socket is closed for silence: `idleTimeout` after it last sent something, and before JOIN `joinTimeout`
    /// after it opened.
    private func closeDeadline(_ state: Connection) -> NIODeadline {
        let idle = state.lastActivity + configuration.idleTimeout
        return state.joined ? idle : min(idle, state.openedAt + configuration.joinTimeout)
    }

    // MARK: - Inputs

    /// Registers an authenticated socket; it becomes part of the meeting once it sends JOIN.
    public mutating func accept(
        _ connection: SignalingConnectionID,
        identity: AttendeeIdentity,
        permissions: AttendeeMediaPermissions = .all,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        if ended { return [.close(connection, code: SignalingCloseCode.meetingEnded)] }
        connections[connection] = Connection(identity: identity, lastActivity: now.monotonic, openedAt: now.monotonic,
                                             permissions: permissions)
        return []
    }

    /// UpdateAttendeeCapabilities for a live attendee, applied at once to its sessions: a camera it may no longer send
    /// stops being published (others get a new INDEX, it gets a warning), audio it may no longer send is held muted, a
    /// content share it may no longer send is closed with ``SignalingCloseCode/forbidden``, and a session whose
    /// receiving changed gets an INDEX of only what it may receive. What is newly allowed applies from its next
    /// SUBSCRIBE or unmute (`control-api.md` §7.2).
    public mutating func updatePermissions(_ attendeeId: String, capabilities: ControlAPI.AttendeeCapabilities,
                                           now: ClockReading) -> [MeetingSignalingOutput] {
        var outputs: [MeetingSignalingOutput] = []
        let sessions = connections.filter {
            $0.value.identity.attendeeId == attendeeId || $0.value.identity.attendeeId == attendeeId + JoinToken.contentSuffix
        }
        for (connection, state) in sessions.sorted(by: { $0.key < $1.key }) {
            let content = Self.isContent(state.identity.attendeeId)
            let permissions = AttendeeMediaPermissions(capabilities, contentSession: content)
            let previous = state.permissions
            connections[connection]?.permissions = permissions
            if content, !permissions.sendsVideo {
                connections[connection] = nil
                outputs += endPublication(of: connection, now: now)
                outputs.append(.send([connection], audioStatus(403, now: now)))
                outputs.append(.close(connection, code: SignalingCloseCode.forbidden))
                continue
            }
            if !permissions.sendsVideo, publications[connection] != nil {
                outputs += endPublication(of: connection, now: now)
                outputs.append(.send([connection], notification(.warning, "video send is not allowed for this attendee "
                    + "(Video capability \(capabilities.video ?? ""))", now: now)))
            }
            if !permissions.sendsAudio, !content { outputs += setMuted(attendeeId, true, now: now) }
            if !content, permissions.receivesAudio != previous.receivesAudio {
                outputs.append(.audioReceiving(attendeeId: attendeeId, receives: permissions.receivesAudio))
            }
            if state.joined, permissions.receivesVideo != previous.receivesVideo
                || permissions.receivesContent != previous.receivesContent {
                outputs.append(.send([connection], indexFrame(for: connection, attendeeId: state.identity.attendeeId, now: now)))
            }
        }
        return outputs
    }

    /// Handles one decoded frame from a registered socket.
    public mutating func receive(
        _ frame: SdkSignalFrame,
        from connection: SignalingConnectionID,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard var state = connections[connection] else { return [] }
        state.lastActivity = now.monotonic
        var limit = state.frameLimit ?? TokenBucket(capacity: configuration.frameBurst, refillPerSecond: configuration.framesPerSecond)
        guard limit.take(now: now.monotonic) else {
            connections[connection] = state
            return [.close(connection, code: SignalingCloseCode.tooManyRequests)]
        }
        state.frameLimit = limit
        connections[connection] = state
        switch frame.type {
        case .pingPong:
            guard frame.hasPingPong, frame.pingPong.type == .ping else { return [] }
            var pong = SdkPingPongFrame()
            pong.type = .pong
            pong.pingID = frame.pingPong.pingID
            var reply = makeFrame(.pingPong, now: now)
            reply.pingPong = pong
            return [.send([connection], reply)]
        case .join:
            return join(connection, frame: frame, now: now)
        case .leave:
            return leave(connection, now: now)
        case .audioControl:
            guard state.joined, frame.hasAudioControl else { return notJoinedWarning(connection, state, now) }
            return setMuted(state.identity.attendeeId, frame.audioControl.muted, now: now)
        case .dataMessage:
            guard state.joined else { return notJoinedWarning(connection, state, now) }
            return dataMessages(frame.dataMessage.messages, from: connection, sender: state.identity, now: now)
        case .clientMetric, .meetingSessionTiming:
            return []
        case .subscribe:
            guard state.joined, !state.left else { return notJoinedWarning(connection, state, now) }
            guard frame.hasSub, !frame.sub.sdpOffer.isEmpty else {
                // JOIN_ACK says compression is off, so an offer only ever comes as text.
                return [.send([connection], errorFrame(400, "SUBSCRIBE carries no sdp_offer", now: now))]
            }
            // Every other attendee's INDEX lists what one announces: an unbounded list would cut them all off.
            let sends = frame.sub.sendStreams.count { $0.mediaType == .video }
            guard sends <= configuration.maximumVideoSendStreams,
                  frame.sub.receiveStreamIds.count <= configuration.maximumReceiveStreams else {
                return [.send([connection], errorFrame(400, "SUBSCRIBE announces \(sends) video streams and receives "
                    + "\(frame.sub.receiveStreamIds.count): at most \(configuration.maximumVideoSendStreams) and "
                    + "\(configuration.maximumReceiveStreams)", now: now))]
            }
            var video = videoRequest(frame.sub, from: connection, identity: state.identity)
            if state.adaptation == .bandwidthProbingAndVideoQualityAdaption {
                video.preferences = Self.preferences(frame.sub.videoSubscriptionConfiguration)
            }
            if Self.isContent(state.identity.attendeeId), !state.periodicKeyFramesDisabled {
                video.keyFrameInterval = configuration.contentKeyFrameInterval
            }
            // The initial mute state travels with the audio in SUBSCRIBE (signaling.md §3.15): applied before the offer
            // is answered, so everyone's roster shows it and the mixer never mixes an attendee who joined muted.
            var outputs: [MeetingSignalingOutput] = []
            if frame.sub.hasAudioMuted, !frame.sub.audioHost.isEmpty {
                outputs = setMuted(state.identity.attendeeId, frame.sub.audioMuted, now: now)
            }
            return outputs + [.subscribe(connection, attendeeId: state.identity.attendeeId, offer: frame.sub.sdpOffer,
                                         video: video)]
        case .pause, .resume:
            guard state.joined, !state.left else { return notJoinedWarning(connection, state, now) }
            let ids = frame.pause.streamIds
            return ids.isEmpty ? [] : [.pauseVideo(connection, streamIds: ids, paused: frame.type == .pause)]
        case .remoteVideoUpdate:
            guard state.joined, !state.left else { return notJoinedWarning(connection, state, now) }
            let update = frame.remoteVideoUpdate
            if state.adaptation == .bandwidthProbingAndVideoQualityAdaption {
                // Mode 4: the server picks the layers; the entries are the client's preferences, as in SUBSCRIBE.
                let updated = Self.preferences(update.addedOrUpdatedVideoSubscriptions)
                let removed = update.removedVideoSubscriptionMids.filter { updated[$0] == nil }
                guard !updated.isEmpty || !removed.isEmpty else { return [] }
                return [.updateVideoPreferences(connection, updated: updated, removedMids: removed)]
            }
            // Client-side layer choice (modes 1-3): entries naming an exact stream switch that m-line's layer.
            return update.addedOrUpdatedVideoSubscriptions.filter { $0.streamID != 0 }.map {
                .selectVideoLayer(connection, mid: $0.mid, streamId: $0.streamID)
            }
        default:
            return [.send([connection], notification(
                .warning, "frame type \(frame.type) is not handled by this server", now: now))]
        }
    }

    /// Reports a frame that could not be decoded: the sender gets an error frame and the socket stays open.
    public mutating func receiveMalformed(
        from connection: SignalingConnectionID,
        reason: String,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard connections[connection] != nil else { return [] }
        connections[connection]?.lastActivity = now.monotonic
        return [.send([connection], errorFrame(400, "malformed frame rejected: \(reason)", now: now))]
    }

    /// The media side's answer to a SUBSCRIBE on `connection`: SUBSCRIBE_ACK with the SDP answer, the allocations of
    /// the session's own video and the tracks it receives, or with an error `status` the client reads as terminal (an
    /// offer that cannot be answered will not get better on retry; 501 when the server serves no media). A session
    /// refused as a video sender gets the answer with status 206. Every other session gets a new INDEX when the
    /// meeting's video sources changed.
    public mutating func subscribeAnswered(
        _ connection: SignalingConnectionID,
        answer: Result<SubscribeAnswer, SubscribeRefusal>,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        let pending = pendingVideo.removeValue(forKey: connection)
        guard connections[connection] != nil else { return [] }
        var frame = makeFrame(.subscribeAck, now: now)
        var ack = SdkSubscribeAckFrame()
        ack.duplex = .rx
        var outputs: [MeetingSignalingOutput] = []
        switch answer {
        case .success(let answer):
            ack.sdpAnswer = answer.sdp
            ack.tracks = answer.tracks.map { track in
                var mapping = SdkTrackMapping()
                mapping.streamID = track.streamId
                mapping.ssrc = track.ssrc
                mapping.trackLabel = "v_\(track.mid)"
                return mapping
            }
            let before = publications[connection]
            switch pending {
            case .publish(var publication):
                // A re-SUBSCRIBE keeps the media's state: only the router reports a change.
                publication.pausedAtSource = before?.pausedAtSource ?? false
                publications[connection] = publication
                ack.duplex = .duplex
                ack.allocations = publication.layers.map { layer in
                    var allocation = SdkStreamAllocation()
                    allocation.trackLabel = layer.trackLabel
                    allocation.streamID = layer.streamId
                    allocation.groupID = publication.groupId
                    return allocation
                }
            case .stop:
                publications[connection] = nil
            case .refused:
                frame.error = Self.errorBody(206, "video sending refused: the meeting has \(configuration.maximumVideoSenders) video senders")
            case nil:
                break
            }
            if publications[connection] != before { outputs += indexUpdate(now: now, excluding: connection) }
            if before == nil, let started = publications[connection] {
                outputs.append(.activity(started.identity, .videoStarted))
            } else if let before, publications[connection] == nil {
                outputs.append(.activity(before.identity, .videoStopped))
            }
        case .failure(let refusal):
            frame.error = Self.errorBody(refusal.status, refusal.message)
        }
        frame.suback = ack
        return [.send([connection], frame)] + outputs
    }

    /// Handles the end of a socket, however it ended.
    public mutating func disconnected(
        _ connection: SignalingConnectionID,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard let state = connections.removeValue(forKey: connection) else { return [] }
        let ended = endPublication(of: connection, now: now)
        let attendeeId = state.identity.attendeeId
        guard state.joined, !state.left, var participant = participants[attendeeId],
              participant.connection == connection else { return ended }
        participant.connection = nil
        participant.dropDeadline = now.monotonic + configuration.dropGrace
        participant.disconnectedAt = now.unixNanoseconds
        participants[attendeeId] = participant
        return ended
    }

    /// Runs timers: drops attendees whose reconnect grace ended and closes idle sockets.
    public mutating func tick(now: ClockReading) -> [MeetingSignalingOutput] {
        var outputs: [MeetingSignalingOutput] = []
        for (attendeeId, participant) in participants {
            guard let deadline = participant.dropDeadline, deadline <= now.monotonic else { continue }
            participants[attendeeId] = nil
            outputs += broadcast(roster: [leaveEntry(participant.streamId, dropped: true)], now: now)
            // `num_participants` changed (its publication ended when its socket did).
            outputs += indexUpdate(now: now, excluding: nil)
            outputs.append(.activity(participant.identity, .dropped))
            departures[attendeeId] = (participant.identity, .dropped, now.unixNanoseconds)
        }
        for (connection, state) in connections where closeDeadline(state) <= now.monotonic {
            outputs.append(.close(connection, code: SignalingCloseCode.idle))
            outputs += disconnected(connection, now: now)
        }
        buffer.removeExpired(now: now.monotonic)
        return outputs
    }

    /// Ends the meeting (DeleteMeeting): everyone is told `AUDIO_STATUS 410`, then every socket is closed.
    public mutating func endMeeting(now: ClockReading) -> [MeetingSignalingOutput] {
        ended = true
        let all = Array(connections.keys)
        var outputs: [MeetingSignalingOutput] = []
        if !all.isEmpty { outputs.append(.send(all, audioStatus(410, now: now))) }
        outputs += all.map { .close($0, code: SignalingCloseCode.meetingEnded) }
        connections.removeAll()
        participants.removeAll()
        publications.removeAll()
        pendingVideo.removeAll()
        return outputs
    }

    /// Removes one attendee (DeleteAttendee): its sockets get `AUDIO_STATUS 411` and are closed, others see it leave.
    public mutating func removeAttendee(_ attendeeId: String, now: ClockReading) -> [MeetingSignalingOutput] {
        var outputs: [MeetingSignalingOutput] = []
        // The content-share session of an attendee goes with it.
        for id in [attendeeId, attendeeId + "#content"] {
            let sockets = connections.filter { $0.value.identity.attendeeId == id }.map(\.key)
            if !sockets.isEmpty { outputs.append(.send(sockets, audioStatus(411, now: now))) }
            for socket in sockets {
                connections[socket] = nil
                outputs.append(.close(socket, code: SignalingCloseCode.attendeeRemoved))
                outputs += endPublication(of: socket, now: now)
            }
            if let participant = participants.removeValue(forKey: id) {
                outputs += broadcast(roster: [leaveEntry(participant.streamId, dropped: false)], now: now)
                outputs.append(.activity(participant.identity, .left))
            }
            // A deleted attendee is no longer the meeting's: nothing to report about it.
            departures[id] = nil
        }
        return outputs
    }

    // MARK: - JOIN and LEAVE

    private mutating func join(
        _ connection: SignalingConnectionID,
        frame: SdkSignalFrame,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard var state = connections[connection], !state.joined else { return [] }
        if Self.isContent(state.identity.attendeeId) {
            let shares = participants.keys.filter { Self.isContent($0) && $0 != state.identity.attendeeId }
            if shares.count >= configuration.maximumContentShares {
                connections[connection] = nil
                return [.send([connection], audioStatus(409, now: now)),
                        .close(connection, code: SignalingCloseCode.atCapacity)]
            }
        }
        state.joined = true
        state.periodicKeyFramesDisabled = frame.hasJoin && frame.join.disablePeriodicKeyframeRequestOnContentSender
        // The mode the client asks for is echoed (every mode is supported): 4 lets this server choose what it receives.
        state.adaptation = frame.hasJoin && frame.join.hasServerSideNetworkAdaption ? frame.join.serverSideNetworkAdaption : .default
        if !configuration.serverSideAdaptation, state.adaptation == .bandwidthProbingAndVideoQualityAdaption {
            state.adaptation = .none
        }
        connections[connection] = state
        let identity = state.identity
        let audioSessionId = frame.hasJoin ? frame.join.audioSessionID : 0
        var outputs: [MeetingSignalingOutput] = []
        var retiredStreamId: UInt32?
        var muted = false

        if let previous = participants[identity.attendeeId] {
            // A reconnect (same audio session) or a second device (another one) replaces the old socket.
            retiredStreamId = previous.streamId
            muted = previous.muted
            if let old = previous.connection, old != connection {
                if previous.audioSessionId != audioSessionId {
                    outputs.append(.send([old], audioStatus(301, now: now)))
                }
                connections[old] = nil
                outputs.append(.close(old, code: SignalingCloseCode.replaced))
                outputs += endPublication(of: old, now: now)
            }
        }
        // An attendee whose capabilities do not let it send audio joins muted and stays so.
        let forcedMute = !muted && !state.permissions.sendsAudio && !Self.isContent(identity.attendeeId)
        if forcedMute { muted = true }
        let newcomer = participants[identity.attendeeId] == nil
        if newcomer { outputs.append(.activity(identity, .joined)) }
        departures[identity.attendeeId] = nil
        let participant = Participant(
            identity: identity,
            streamId: allocateStreamId(),
            muted: muted,
            audioSessionId: audioSessionId,
            connection: connection,
            dropDeadline: nil,
            joinedAt: participants[identity.attendeeId]?.joinedAt ?? now.unixNanoseconds
        )
        participants[identity.attendeeId] = participant
        if forcedMute { outputs.append(.audioMuted(attendeeId: identity.attendeeId, muted: true)) }

        var joinAck = SdkJoinAckFrame()
        joinAck.videoSubscriptionLimit = 25
        joinAck.wantsCompressedSdp = false
        joinAck.defaultServerSideNetworkAdaption = state.adaptation
        var ack = makeFrame(.joinAck, now: now)
        ack.joinack = joinAck
        outputs.append(.send([connection], ack))

        outputs.append(.send([connection], indexFrame(for: connection, attendeeId: identity.attendeeId, now: now)))

        // The joiner gets the complete roster; everybody else only the news.
        let roster = participants.values.sorted { $0.streamId < $1.streamId }.map(presentEntry)
        outputs.append(.send([connection], rosterFrame(roster, now: now)))
        var news = [presentEntry(participant)]
        if let retiredStreamId { news.append(leaveEntry(retiredStreamId, dropped: false)) }
        outputs += broadcast(roster: news, now: now, excluding: connection)
        // `num_participants` changed: the others' uplink policies (Chime's simulcast table) read it from INDEX.
        if newcomer { outputs += indexUpdate(now: now, excluding: connection) }

        // The replay in frames of at most ``replayMessagesPerFrame``: 1024 messages of 2 KiB in one frame would be 2 MiB,
        // over the clients' 1 MiB frame limit.
        let replay = buffer.liveMessages(now: now.monotonic)
        for start in stride(from: 0, to: replay.count, by: Self.replayMessagesPerFrame) {
            let chunk = Array(replay[start..<min(start + Self.replayMessagesPerFrame, replay.count)])
            outputs.append(.send([connection], dataFrame(chunk, now: now)))
        }
        return outputs
    }

    private mutating func leave(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingSignalingOutput] {
        guard var state = connections[connection] else { return [] }
        var outputs: [MeetingSignalingOutput] = []
        var departed = false
        if state.joined, !state.left, let participant = participants[state.identity.attendeeId],
           participant.connection == connection {
            participants[state.identity.attendeeId] = nil
            departed = true
            outputs += broadcast(roster: [leaveEntry(participant.streamId, dropped: false)], now: now,
                                 excluding: connection)
            outputs.append(.activity(participant.identity, .left))
            departures[participant.identity.attendeeId] = (participant.identity, .left, now.unixNanoseconds)
        }
        state.left = true
        connections[connection] = state
        // One INDEX tells the others of the ended publication and the new `num_participants` together.
        let published = publications[connection] != nil
        outputs += endPublication(of: connection, now: now)
        if departed, !published { outputs += indexUpdate(now: now, excluding: connection) }
        var ack = makeFrame(.leaveAck, now: now)
        ack.leaveAck = SdkLeaveAckFrame()
        outputs.append(.send([connection], ack))
        outputs.append(.endMedia(connection))
        return outputs
    }

    // MARK: - Video sources

    /// Applies the meeting's video rules to a SUBSCRIBE: whether the session may publish (its ids stay stable across
    /// renegotiations; a new publication gets a new, larger group id) and which live stream each video m-line wants.
    private mutating func videoRequest(_ subscribe: SdkSubscribeFrame, from connection: SignalingConnectionID,
                                       identity: AttendeeIdentity) -> VideoSubscribeRequest {
        let sends = subscribe.sendStreams.filter { $0.mediaType == .video }
        let permissions = connections[connection]?.permissions ?? .all
        var sending = VideoSubscribeRequest.Sending.none
        if sends.isEmpty {
            pendingVideo[connection] = .stop
        } else if !permissions.sendsVideo {
            // The attendee's capabilities do not let it publish: answered as a meeting at its sender limit is (206).
            pendingVideo[connection] = .refused
            sending = .refused
        } else if var publication = publications[connection] {
            publication.layers = layers(for: sends, keeping: publication.layers)
            pendingVideo[connection] = .publish(publication)
            sending = .allowed
        } else if !Self.isContent(identity.attendeeId), cameraPublicationCount >= configuration.maximumVideoSenders {
            pendingVideo[connection] = .refused
            sending = .refused
        } else {
            let groupId = nextGroupId
            nextGroupId &+= 1
            pendingVideo[connection] = .publish(VideoPublication(identity: identity, groupId: groupId,
                                                                 layers: layers(for: sends, keeping: [])))
            sending = .allowed
        }
        let receive = subscribe.receiveStreamIds.map { streamId -> VideoSourceReference? in
            guard streamId != 0 else { return nil }
            for (publisher, publication) in publications where publication.identity.attendeeId != identity.attendeeId {
                guard Self.isContent(publication.identity.attendeeId) ? permissions.receivesContent : permissions.receivesVideo
                else { continue }
                if publication.layers.contains(where: { $0.streamId == streamId }) {
                    return VideoSourceReference(publisher: publisher, streamId: streamId, groupId: publication.groupId,
                                                attendeeId: publication.identity.attendeeId)
                }
            }
            return nil
        }
        var sendStreamIds: [UInt32] = []
        var sendStreamFormats: [VideoSubscribeRequest.StreamFormat] = []
        if case .publish(let publication) = pendingVideo[connection] {
            sendStreamIds = publication.layers.map(\.streamId)
            sendStreamFormats = publication.layers.map { .init(width: $0.width, height: $0.height, framerate: $0.framerate) }
        }
        return VideoSubscribeRequest(sending: sending, receive: receive, sendStreamIds: sendStreamIds,
                                     sendStreamFormats: sendStreamFormats)
    }

    /// The encodings of `sends`, keeping the stream ids already allocated to the same positions.
    private mutating func layers(for sends: [SdkStreamDescriptor], keeping existing: [VideoLayer]) -> [VideoLayer] {
        sends.enumerated().map { index, send in
            let streamId: UInt32
            if index < existing.count {
                streamId = existing[index].streamId
            } else {
                streamId = nextVideoStreamId
                nextVideoStreamId &+= 1
            }
            return VideoLayer(streamId: streamId, maxBitrateKbps: send.maxBitrateKbps, framerate: send.framerate,
                              trackLabel: send.trackLabel, width: send.width, height: send.height)
        }
    }

    /// Most stored data messages replayed in one frame (at 2 KiB each, 200 KiB).
    static let replayMessagesPerFrame = 100

    /// Whether an attendee id is a content share's (`<attendeeId>#content`).
    static func isContent(_ attendeeId: String) -> Bool { attendeeId.hasSuffix(JoinToken.contentSuffix) }

    /// The publications that count toward ``Configuration/maximumVideoSenders``: all but content shares.
    private var cameraPublicationCount: Int {
        publications.values.count { !Self.isContent($0.identity.attendeeId) }
    }

    /// SUBSCRIBE `video_subscription_configuration` by mid (mode 4).
    static func preferences(_ configurations: [SdkVideoSubscriptionConfiguration]) -> [String: VideoDownlinkPreference] {
        var preferences: [String: VideoDownlinkPreference] = [:]
        for configuration in configurations {
            let degradation: VideoDegradationPreference = switch configuration.qualityAdaptationPreference {
            case .balanced: .balanced
            case .maintainFramerate: .maintainFramerate
            case .maintainResolution: .maintainResolution
            }
            preferences[configuration.mid] = VideoDownlinkPreference(priority: configuration.priority,
                                                                     targetBitrateKbps: configuration.targetBitrateKbps,
                                                                     degradation: degradation)
        }
        return preferences
    }

    /// A receiver's allocation (mode 4) stopped or restarted forwarding sources: S→C PAUSE or RESUME `{group_ids}`.
    public func videoDownlinkPaused(_ connection: SignalingConnectionID, groupIds: [UInt32], paused: Bool,
                                    now: ClockReading) -> [MeetingSignalingOutput] {
        guard connections[connection]?.joined == true, !groupIds.isEmpty else { return [] }
        var frame = makeFrame(paused ? .pause : .resume, now: now)
        var body = SdkPauseResumeFrame()
        body.groupIds = groupIds
        frame.pause = body
        return [.send([connection], frame)]
    }

    /// A receiver's downlink estimate (mode 4): BITRATES with `server_available_outgoing_bitrate` in kbps and the
    /// streams' latest measured rates; kept, so the once-a-second rates carry it too (a BITRATES without it would
    /// tell a priority-based client it has no bandwidth).
    public mutating func videoDownlinkEstimate(_ connection: SignalingConnectionID, kbps: UInt32,
                                               now: ClockReading) -> [MeetingSignalingOutput] {
        guard connections[connection]?.joined == true else { return [] }
        connections[connection]?.downlinkEstimateKbps = kbps
        return [.send([connection], bitratesFrame(for: connection, now: now))]
    }

    /// The media of a session's camera stopped arriving (`paused`) or arrives again: everyone else gets a new INDEX
    /// whose `paused_at_source_ids` lists (or no longer lists) its stream ids, and marks its tile accordingly.
    public mutating func videoSourcePaused(_ connection: SignalingConnectionID, paused: Bool,
                                           now: ClockReading) -> [MeetingSignalingOutput] {
        guard var publication = publications[connection], publication.pausedAtSource != paused else { return [] }
        publication.pausedAtSource = paused
        publications[connection] = publication
        return indexUpdate(now: now, excluding: connection)
    }

    /// The measured bitrates of the meeting's video streams (bits per second, by stream id): a BITRATES frame to every
    /// joined socket, the senders' own streams included (`signaling.md` §3.12), with the receiver's downlink estimate
    /// when it has one. Streams no publication lists are left out. O(streams) per call; receivers without an estimate
    /// share one encoded frame.
    public mutating func videoBitrates(_ rates: [(streamId: UInt32, bitrate: Int)], now: ClockReading)
        -> [MeetingSignalingOutput] {
        let known = Set(publications.values.flatMap { $0.layers.map(\.streamId) })
        latestBitrates = rates.filter { known.contains($0.streamId) }.map { rate in
            var entry = SdkBitrate()
            entry.sourceStreamID = rate.streamId
            entry.avgBitrateBps = UInt32(clamping: rate.bitrate)
            return entry
        }
        guard !latestBitrates.isEmpty else { return [] }
        let targets = joinedConnections()
        let plain = targets.filter { connections[$0]?.downlinkEstimateKbps == nil }
        var outputs: [MeetingSignalingOutput] = plain.isEmpty ? [] : [.send(plain, bitratesFrame(for: nil, now: now))]
        for target in targets where connections[target]?.downlinkEstimateKbps != nil {
            outputs.append(.send([target], bitratesFrame(for: target, now: now)))
        }
        return outputs
    }

    /// A BITRATES frame: the latest measured stream rates, and `receiver`'s downlink estimate when it has one.
    private func bitratesFrame(for receiver: SignalingConnectionID?, now: ClockReading) -> SdkSignalFrame {
        var frame = makeFrame(.bitrates, now: now)
        var body = SdkBitrateFrame()
        body.bitrates = latestBitrates
        if let receiver, let kbps = connections[receiver]?.downlinkEstimateKbps { body.serverAvailableOutgoingBitrate = kbps }
        frame.bitrates = body
        return frame
    }

    /// Removes the publication of a socket that ended or left, telling everyone else with a new INDEX.
    private mutating func endPublication(of connection: SignalingConnectionID, now: ClockReading) -> [MeetingSignalingOutput] {
        pendingVideo[connection] = nil
        guard let ended = publications.removeValue(forKey: connection) else { return [] }
        return indexUpdate(now: now, excluding: connection) + [.activity(ended.identity, .videoStopped)]
    }

    /// A fresh INDEX for every joined socket but `excluded` (each sees every source but its own attendee's).
    private func indexUpdate(now: ClockReading, excluding excluded: SignalingConnectionID?) -> [MeetingSignalingOutput] {
        joinedConnections(excluding: excluded).compactMap { target in
            guard let attendeeId = connections[target]?.identity.attendeeId else { return nil }
            return .send([target], indexFrame(for: target, attendeeId: attendeeId, now: now))
        }
    }

    /// The INDEX one receiver gets (`video.md` §3): one descriptor per enabled encoding of every other attendee's
    /// source, VP8 as the meeting's codec, and whether it may still start sending.
    private func indexFrame(for receiver: SignalingConnectionID, attendeeId: String, now: ClockReading) -> SdkSignalFrame {
        var index = SdkIndexFrame()
        index.atCapacity = publications[receiver] == nil && cameraPublicationCount >= configuration.maximumVideoSenders
        index.numParticipants = UInt32(participants.count)
        index.supportedReceiveCodecIntersection = [.vp8]
        let permissions = connections[receiver]?.permissions ?? .all
        let sources = publications.filter { $0.value.identity.attendeeId != attendeeId }
            .filter { Self.isContent($0.value.identity.attendeeId) ? permissions.receivesContent : permissions.receivesVideo }
            .sorted { $0.value.groupId < $1.value.groupId }
        for (_, publication) in sources {
            let enabled = publication.layers.filter { $0.maxBitrateKbps > 0 }
            for layer in enabled.isEmpty ? Array(publication.layers.prefix(1)) : enabled {
                var descriptor = SdkStreamDescriptor()
                descriptor.streamID = layer.streamId
                descriptor.groupID = publication.groupId
                descriptor.framerate = layer.framerate > 0 ? layer.framerate : 15
                descriptor.maxBitrateKbps = layer.maxBitrateKbps > 0 ? layer.maxBitrateKbps : 1_500
                descriptor.avgBitrateBps = descriptor.maxBitrateKbps * 1_000
                descriptor.trackLabel = layer.trackLabel
                if layer.width > 0, layer.height > 0 {
                    descriptor.width = layer.width
                    descriptor.height = layer.height
                }
                descriptor.attendeeID = publication.identity.attendeeId
                descriptor.externalUserID = publication.identity.externalUserId
                descriptor.mediaType = .video
                index.sources.append(descriptor)
                if publication.pausedAtSource { index.pausedAtSourceIds.append(layer.streamId) }
            }
        }
        var frame = makeFrame(.index, now: now)
        frame.index = index
        return frame
    }

    // MARK: - Mute and data messages

    private mutating func setMuted(_ attendeeId: String, _ muted: Bool, now: ClockReading) -> [MeetingSignalingOutput] {
        // An attendee whose capabilities do not let it send audio stays muted: the mixer never mixes it.
        let muted = muted || !sendsAudio(attendeeId)
        guard var participant = participants[attendeeId], participant.muted != muted else { return [] }
        participant.muted = muted
        participants[attendeeId] = participant
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = participant.streamId
        entry.muted = muted
        return broadcast(roster: [entry], now: now) + [.audioMuted(attendeeId: attendeeId, muted: muted)]
    }

    // MARK: - Audio metadata

    /// The audio stream id of an attendee's current session in the roster.
    public func streamId(of attendeeId: String) -> UInt32? { participants[attendeeId]?.streamId }

    /// Whether the attendee's live session may send audio (true while it has none).
    private func sendsAudio(_ attendeeId: String) -> Bool {
        guard let connection = participants[attendeeId]?.connection else { return true }
        return connections[connection]?.permissions.sendsAudio ?? true
    }

    /// Whether an attendee's live session may hear the meeting (true while it has none).
    public func hearsMeeting(_ attendeeId: String) -> Bool {
        guard let connection = participants[attendeeId]?.connection else { return true }
        return connections[connection]?.permissions.receivesAudio ?? true
    }

    /// Every attendee that has joined this room, present or gone, content-share sessions folded into their owner's
    /// ``LiveAttendeeState/content``; sorted by attendee id. Cost: linear in the attendees and publications.
    public func liveAttendees() -> [LiveAttendeeState] {
        let publishing = Set(publications.values.map(\.identity.attendeeId))
        var states: [LiveAttendeeState] = []
        for participant in participants.values where !Self.isContent(participant.identity.attendeeId) {
            let id = participant.identity.attendeeId
            let reconnecting = participant.connection == nil
            states.append(LiveAttendeeState(
                attendeeId: id, externalUserId: participant.identity.externalUserId,
                presence: reconnecting ? .reconnecting : .joined,
                sinceUnixNanoseconds: reconnecting ? participant.disconnectedAt ?? participant.joinedAt : participant.joinedAt,
                muted: participant.muted, video: publishing.contains(id),
                content: participants[id + JoinToken.contentSuffix] != nil))
        }
        for (id, departure) in departures where !Self.isContent(id) && participants[id] == nil {
            states.append(LiveAttendeeState(
                attendeeId: id, externalUserId: departure.identity.externalUserId, presence: departure.presence,
                sinceUnixNanoseconds: departure.at, muted: false, video: false, content: false))
        }
        return states.sorted { $0.attendeeId < $1.attendeeId }
    }

    /// Whether an attendee is muted (false for unknown attendees).
    public func isMuted(_ attendeeId: String) -> Bool { participants[attendeeId]?.muted ?? false }

    /// One AUDIO_METADATA frame to every joined socket with the volume (dB below full scale, 0 loudest) and the
    /// uplink signal strength (0 no audio, 1 lossy, 2 good) of the attendees given; attendees not in the roster are
    /// left out. The client sets every attendee missing from a frame with volumes to silent, so pass all audible
    /// ones.
    public func audioMetadata(
        _ states: [(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)],
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        let entries: [SdkAudioAttendeeState] = states.compactMap { state in
            guard let participant = participants[state.attendeeId] else { return nil }
            var entry = SdkAudioAttendeeState()
            entry.audioStreamID = participant.streamId
            if let volume = state.volume { entry.volume = volume }
            if let signal = state.signalStrength { entry.signalStrength = signal }
            return entry
        }
        let targets = joinedConnections(excluding: nil)
        guard !entries.isEmpty, !targets.isEmpty else { return [] }
        var frame = makeFrame(.audioMetadata, now: now)
        frame.audioMetadata.attendeeStates = entries
        return [.send(targets, frame)]
    }

    private mutating func dataMessages(
        _ payloads: [SdkDataMessagePayload],
        from connection: SignalingConnectionID,
        sender: AttendeeIdentity,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        guard payloads.count <= configuration.maximumDataMessagesPerFrame else {
            return [.send([connection], notification(.warning, "data message frame rejected: \(payloads.count) messages, "
                + "at most \(configuration.maximumDataMessagesPerFrame) in one frame", now: now))]
        }
        // The hard limits first: a session past them is cut off before anything of the frame is relayed.
        var sessionLimit = connections[connection]?.dataMessageLimit
            ?? TokenBucket(capacity: configuration.attendeeHardBurst, refillPerSecond: configuration.attendeeHardRate)
        for _ in payloads {
            guard sessionLimit.take(now: now.monotonic), dataMessageLimit.take(now: now.monotonic) else {
                connections[connection]?.dataMessageLimit = sessionLimit
                return [.close(connection, code: SignalingCloseCode.tooManyRequests)]
            }
        }
        connections[connection]?.dataMessageLimit = sessionLimit
        var outputs: [MeetingSignalingOutput] = []
        var delivered: [SdkDataMessagePayload] = []
        var throttled: [SdkDataMessagePayload] = []
        var rejected: [String] = []
        var share = connections[connection]?.throttleShare
            ?? TokenBucket(capacity: configuration.throttleBurst / 2, refillPerSecond: configuration.throttleRate / 2)
        defer { connections[connection]?.throttleShare = share }
        for payload in payloads {
            if let problem = problem(with: payload) {
                rejected.append(problem)
                continue
            }
            var stamped = payload
            stamped.senderAttendeeID = sender.attendeeId
            stamped.senderExternalUserID = sender.externalUserId
            guard admitsUnderThrottle(&share, now: now.monotonic) else {
                stamped.clearIngestTimeNs()
                throttled.append(stamped)
                continue
            }
            // Ingest times are strictly increasing even if the wall clock steps back.
            lastIngestNanoseconds = max(lastIngestNanoseconds + 1, now.unixNanoseconds)
            stamped.ingestTimeNs = lastIngestNanoseconds
            if stamped.lifetimeMs > 0 {
                buffer.store(stamped, lifetime: .milliseconds(Int64(stamped.lifetimeMs)), now: now.monotonic)
            }
            delivered.append(stamped)
        }
        if !delivered.isEmpty {
            let others = joinedConnections(excluding: connection)
            if !others.isEmpty { outputs.append(.send(others, dataFrame(delivered, now: now))) }
        }
        if !throttled.isEmpty { outputs.append(.send([connection], dataFrame(throttled, now: now))) }
        if let first = rejected.first {
            // One warning per frame, however many of its messages were bad.
            let more = rejected.count > 1 ? " (and \(rejected.count - 1) more)" : ""
            outputs.append(.send([connection], notification(.warning, "data message rejected: \(first)\(more)", now: now)))
        }
        return outputs
    }

    /// Whether a message passes the meeting's soft throttle: from the session's `share` while it has tokens, beyond it
    /// only while the meeting's bucket holds more than its reserve (a quarter of the burst) for the other senders.
    private mutating func admitsUnderThrottle(_ share: inout TokenBucket, now: NIODeadline) -> Bool {
        let ownToken = share.available(now: now) >= 1
        guard ownToken || throttle.available(now: now) >= configuration.throttleBurst / 4 + 1 else { return false }
        guard throttle.take(now: now) else { return false }
        if ownToken { _ = share.take(now: now) }
        return true
    }

    private func problem(with payload: SdkDataMessagePayload) -> String? {
        if !DataMessageTopic.isValid(payload.topic) {
            return "topic \"\(payload.topic.prefix(64))\" must match ^[a-zA-Z0-9_-]{1,36}$"
        }
        if payload.data.count > configuration.maximumPayloadBytes {
            return "payload of \(payload.data.count) bytes exceeds \(configuration.maximumPayloadBytes) bytes"
        }
        return nil
    }

    // MARK: - Frame building

    private mutating func allocateStreamId() -> UInt32 {
        defer { nextStreamId &+= 1 }
        return nextStreamId
    }

    private func joinedConnections(excluding excluded: SignalingConnectionID? = nil) -> [SignalingConnectionID] {
        connections.filter { $0.value.joined && !$0.value.left && $0.key != excluded }.map(\.key).sorted()
    }

    private func broadcast(
        roster entries: [SdkAudioStreamIdInfo],
        now: ClockReading,
        excluding excluded: SignalingConnectionID? = nil
    ) -> [MeetingSignalingOutput] {
        let targets = joinedConnections(excluding: excluded)
        return targets.isEmpty ? [] : [.send(targets, rosterFrame(entries, now: now))]
    }

    private func presentEntry(_ participant: Participant) -> SdkAudioStreamIdInfo {
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = participant.streamId
        entry.attendeeID = participant.identity.attendeeId
        entry.externalUserID = participant.identity.externalUserId
        entry.muted = participant.muted
        return entry
    }

    private func leaveEntry(_ streamId: UInt32, dropped: Bool) -> SdkAudioStreamIdInfo {
        var entry = SdkAudioStreamIdInfo()
        entry.audioStreamID = streamId
        if dropped { entry.dropped = true }
        return entry
    }

    private func rosterFrame(_ entries: [SdkAudioStreamIdInfo], now: ClockReading) -> SdkSignalFrame {
        var info = SdkAudioStreamIdInfoFrame()
        info.streams = entries
        var frame = makeFrame(.audioStreamIDInfo, now: now)
        frame.audioStreamIDInfo = info
        return frame
    }

    private func dataFrame(_ payloads: [SdkDataMessagePayload], now: ClockReading) -> SdkSignalFrame {
        var batch = SdkDataMessageFrame()
        batch.messages = payloads
        var frame = makeFrame(.dataMessage, now: now)
        frame.dataMessage = batch
        return frame
    }

    private func audioStatus(_ status: UInt32, now: ClockReading) -> SdkSignalFrame {
        var body = SdkAudioStatusFrame()
        body.audioStatus = status
        var frame = makeFrame(.audioStatus, now: now)
        frame.audioStatus = body
        return frame
    }

    private func notification(
        _ level: SdkNotificationFrame.NotificationLevel,
        _ message: String,
        now: ClockReading
    ) -> SdkSignalFrame {
        var body = SdkNotificationFrame()
        body.level = level
        body.message = message
        var frame = makeFrame(.notification, now: now)
        frame.notification = body
        return frame
    }

    /// A notification that carries `error.status`, which the client evaluates like a status (4xx ends its session).
    private func errorFrame(_ status: UInt32, _ message: String, now: ClockReading) -> SdkSignalFrame {
        var frame = notification(.error, message, now: now)
        frame.error = Self.errorBody(status, message)
        return frame
    }

    private static func errorBody(_ status: UInt32, _ message: String) -> SdkErrorFrame {
        var error = SdkErrorFrame()
        error.status = status
        error.description_p = message
        return error
    }

    private func notJoinedWarning(
        _ connection: SignalingConnectionID,
        _ state: Connection,
        _ now: ClockReading
    ) -> [MeetingSignalingOutput] {
        [.send([connection], notification(.warning, state.joined ? "frame without its payload ignored"
                                                                 : "send JOIN first", now: now))]
    }

    private func makeFrame(_ type: SdkSignalFrame.TypeEnum, now: ClockReading) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = now.unixMilliseconds
        frame.type = type
        return frame
    }
}
