import CarillonProtocol
import CarillonRTC
import Logging
import NIOCore

/// The live signaling side of one meeting: runs a ``MeetingSignalingCore`` on the meeting's own event loop.
///
/// Threading: every method may be called from any thread; each one hops onto ``eventLoop`` (one `execute` per call,
/// visible below), where the core and the socket sinks live. Nothing here takes a lock.
public final class MeetingRoom: @unchecked Sendable {
    /// The event loop that owns this meeting's state.
    public let eventLoop: any EventLoop
    /// The meeting id.
    public let meetingId: String
    private let logger: Logger
    // Confined to `eventLoop`.
    private var core: MeetingSignalingCore
    private var sinks: [SignalingConnectionID: AsyncStream<SignalingOutbound>.Continuation] = [:]
    /// The core's one timer.
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.apply { $0.tick(now: $1) } }
    private let media: MeetingMedia?
    private let openedAt: NIODeadline
    private let events: MeetingEventRouter?

    /// Creates the room of a meeting on `eventLoop`; without a media context SUBSCRIBE is refused.
    public init(
        meetingId: String,
        eventLoop: any EventLoop,
        configuration: MeetingSignalingCore.Configuration,
        media context: MediaContext? = nil,
        logger: Logger,
        events: MeetingEventRouter? = nil
    ) {
        self.events = events
        self.meetingId = meetingId
        self.eventLoop = eventLoop
        self.core = MeetingSignalingCore(meetingId: meetingId, configuration: configuration)
        var logger = logger
        logger[metadataKey: "meeting"] = "\(meetingId)"
        self.logger = logger
        self.openedAt = eventLoop.now
        self.media = context.map { MeetingMedia(eventLoop: eventLoop, context: $0, logger: logger) }
        media?.onAudioMetadata = { [weak self] states in
            self?.apply { core, now in core.audioMetadata(states, now: now) }
        }
        media?.onVideoSourcePaused = { [weak self] connection, paused in
            self?.apply { core, now in core.videoSourcePaused(connection, paused: paused, now: now) }
        }
        media?.onVideoBitrates = { [weak self] rates in
            self?.apply { core, now in core.videoBitrates(rates, now: now) }
        }
        media?.onVideoDownlinkPaused = { [weak self] connection, groupIds, paused in
            self?.apply { core, now in core.videoDownlinkPaused(connection, groupIds: groupIds, paused: paused, now: now) }
        }
        media?.onVideoDownlinkEstimate = { [weak self] connection, kbps in
            self?.apply { core, now in core.videoDownlinkEstimate(connection, kbps: kbps, now: now) }
        }
        media?.isMuted = { [weak self] attendeeId in self?.core.isMuted(attendeeId) ?? false }
        media?.hearsMeeting = { [weak self] attendeeId in self?.core.hearsMeeting(attendeeId) ?? true }
    }

    /// Adds an authenticated socket, allowed what `permissions` allow; frames for it go into `sink`.
    public func attach(
        _ connection: SignalingConnectionID,
        identity: AttendeeIdentity,
        permissions: AttendeeMediaPermissions = .all,
        sink: AsyncStream<SignalingOutbound>.Continuation
    ) {
        eventLoop.execute {
            self.sinks[connection] = sink
            self.apply { $0.accept(connection, identity: identity, permissions: permissions, now: $1) }
        }
    }

    /// Applies an attendee's new capabilities to its live sessions at once.
    public func updatePermissions(_ attendeeId: String, capabilities: ControlAPI.AttendeeCapabilities) {
        eventLoop.execute { self.apply { $0.updatePermissions(attendeeId, capabilities: capabilities, now: $1) } }
    }

    /// Hands a decoded frame from a socket to the meeting; the future completes once the meeting has handled it
    /// (the reader's back-pressure, see ``InboundFrameWindow``).
    @discardableResult
    public func receive(_ frame: SdkSignalFrame, from connection: SignalingConnectionID) -> EventLoopFuture<Void> {
        eventLoop.submit { self.apply { $0.receive(frame, from: connection, now: $1) } }
    }

    /// Reports a message from a socket that did not decode; the future completes once the meeting has handled it.
    @discardableResult
    public func receiveMalformed(from connection: SignalingConnectionID, reason: String) -> EventLoopFuture<Void> {
        eventLoop.submit { self.apply { $0.receiveMalformed(from: connection, reason: reason, now: $1) } }
    }

    /// Reports that a socket has ended.
    public func detach(_ connection: SignalingConnectionID) {
        eventLoop.execute {
            self.sinks.removeValue(forKey: connection)?.finish()
            self.media?.end(connection)
            self.apply { $0.disconnected(connection, now: $1) }
        }
    }

    /// Ends the meeting for everyone (it was deleted or expired): every session is told and closed, and the media
    /// (connections, mixer, codecs, timers) is released at once.
    public func endMeeting() {
        eventLoop.execute {
            self.apply { $0.endMeeting(now: $1) }
            self.media?.endAll()
        }
    }

    /// How long no attendee has had an audio connection: zero while one has; for a meeting without media, the time
    /// since the room opened.
    public func audioIdleTime() -> EventLoopFuture<TimeAmount> {
        eventLoop.submit {
            let now = self.eventLoop.now
            guard let media = self.media else { return now - self.openedAt }
            return media.audioIdleSince.map { now - $0 } ?? .zero
        }
    }

    /// Every attendee that has joined this room, present or gone (``MeetingSignalingCore/liveAttendees()``), read
    /// on the room's event loop.
    public func liveAttendees() -> EventLoopFuture<[LiveAttendeeState]> {
        eventLoop.submit { self.core.liveAttendees() }
    }

    /// Removes a deleted attendee from the meeting.
    public func removeAttendee(_ attendeeId: String) {
        eventLoop.execute { self.apply { $0.removeAttendee(attendeeId, now: $1) } }
    }

    /// Closes every socket with `code` (server shutdown: clients reconnect when it is back).
    public func closeAll(code: UInt16) {
        eventLoop.execute {
            for (_, sink) in self.sinks {
                sink.yield(.close(code))
                sink.finish()
            }
            self.sinks.removeAll()
            self.media?.endAll()
        }
    }

    // MARK: - Running the core

    private func apply(_ step: (inout MeetingSignalingCore, ClockReading) -> [MeetingSignalingOutput]) {
        eventLoop.assertInEventLoop()
        let outputs = step(&core, ClockReading(eventLoop: eventLoop))
        perform(outputs)
        rescheduleTimer()
    }

    private func perform(_ outputs: [MeetingSignalingOutput]) {
        for output in outputs {
            switch output {
            case .send(let targets, let frame):
                let bytes: [UInt8]
                do {
                    bytes = try SignalFrameCodec.encode(frame)
                } catch {
                    logger.error("could not encode a \(frame.type) frame: \(error)")
                    continue
                }
                // Encoded once; every receiver gets the same immutable buffer.
                let buffer = ByteBuffer(bytes: bytes)
                for target in targets {
                    guard case .dropped = sinks[target]?.yield(.message(buffer)) else { continue }
                    // Its socket's queue is full: a reader that fell that far behind is cut off, not buffered for.
                    logger.info("signaling socket \(target) fell behind its queue: closed")
                    sinks.removeValue(forKey: target)?.finish()
                    media?.end(target)
                    apply { $0.disconnected(target, now: $1) }
                }
            case .close(let target, let code):
                if let sink = sinks.removeValue(forKey: target) {
                    sink.yield(.close(code))
                    sink.finish()
                }
                media?.end(target)
            case .subscribe(let target, let attendeeId, let offer, let video):
                let result = answer(offer, attendeeId: attendeeId, connection: target, video: video)
                apply { $0.subscribeAnswered(target, answer: result, now: $1) }
            case .pauseVideo(let target, let streamIds, let paused):
                media?.setVideoPaused(paused, streamIds: streamIds, connection: target)
            case .selectVideoLayer(let target, let mid, let streamId):
                media?.selectVideoLayer(streamId, mid: mid, connection: target)
            case .updateVideoPreferences(let target, let updated, let removedMids):
                media?.updateVideoPreferences(updated, removedMids: removedMids, connection: target)
            case .endMedia(let target):
                media?.end(target)
            case .audioMuted(let attendeeId, let muted):
                media?.setMuted(muted, attendeeId: attendeeId)
            case .audioReceiving(let attendeeId, let receives):
                media?.setHearsMeeting(receives, attendeeId: attendeeId)
            case .activity(let identity, let change):
                // What an operator follows a meeting by, at info (the same changes as the lifecycle events); a
                // content share's session is named as one.
                let subject = identity.attendeeId.hasSuffix("#content") ? "content share" : "attendee"
                let verb = switch (subject, change) {
                case ("content share", .joined): "started"
                case ("content share", .left): "stopped"
                default: "\(change)"
                }
                logger.info("\(subject) \(verb)", metadata: ["attendee": "\(identity.attendeeId)",
                                                         "externalUserId": "\(identity.externalUserId)"])
                events?.activity(meetingId: meetingId, identity: identity, change: change)
            }
        }
    }

    /// Answers an offer through the media side; the core turns the result into SUBSCRIBE_ACK.
    private func answer(_ offer: String, attendeeId: String, connection: SignalingConnectionID,
                        video: VideoSubscribeRequest) -> Result<SubscribeAnswer, SubscribeRefusal> {
        guard let media else { return .failure(SubscribeRefusal(status: 501, message: "this server does not serve media")) }
        do {
            return .success(try media.answer(offer: offer, attendeeId: attendeeId, connection: connection, video: video))
        } catch {
            logger.info("SUBSCRIBE refused", metadata: ["attendee": "\(attendeeId)", "reason": "\(error)"])
            return .failure(SubscribeRefusal(status: 400, message: "the offer cannot be answered: \(error)"))
        }
    }

    private func rescheduleTimer() {
        timer.follow(core.nextDeadline)
    }
}
