import CarillonProtocol
import CarillonRTC
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

    /// The meeting this core serves.
    public let meetingId: String
    let configuration: Configuration
    var connections: [SignalingConnectionID: Connection] = [:]
    var participants: [String: Participant] = [:]
    var nextStreamId: UInt32 = 1
    var publications: [SignalingConnectionID: VideoPublication] = [:]
    /// The latest measured rates of the meeting's video streams, for BITRATES.
    var latestBitrates: [SdkBitrate] = []
    var pendingVideo: [SignalingConnectionID: PendingVideo] = [:]
    var nextVideoStreamId: UInt32 = 1
    var nextGroupId: UInt32 = 1
    var buffer: DataMessageBuffer
    var throttle: TokenBucket
    /// The meeting's hard data-message limit (``Configuration/meetingHardRate``).
    var dataMessageLimit: TokenBucket
    var lastIngestNanoseconds: Int64 = 0
    var ended = false
    /// How each attendee that was here and is gone went, and when (wall clock): at most one entry per attendee id
    /// that ever joined, and a meeting admits a bounded number of attendees (the control API's limit).
    var departures: [String: (identity: AttendeeIdentity, presence: LiveAttendeeState.Presence, at: Int64)] = [:]

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
    func closeDeadline(_ state: Connection) -> NIODeadline {
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
}
