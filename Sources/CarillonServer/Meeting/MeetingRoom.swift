import CarillonProtocol
import CarillonRTC
import Logging
import NIOCore

/// One live meeting on the server: the I/O shell of its ``MeetingCore`` (signaling and media wired together) on the
/// meeting's own event loop. It moves frames between the core and the sockets' sinks, runs the media transports the
/// core negotiates (``MeetingMedia``), sends what the core returns, keeps one timer at the core's deadline and
/// reads the clock; it decides nothing.
///
/// Threading: every method may be called from any thread; each one hops onto ``eventLoop`` (one `execute` per call,
/// visible below), where the core, the transports and the socket sinks live. Nothing here takes a lock.
public final class MeetingRoom: @unchecked Sendable {
    /// The event loop that owns this meeting's state.
    public let eventLoop: any EventLoop
    /// The meeting id.
    public let meetingId: String
    private let logger: Logger
    // Confined to `eventLoop`.
    private let core: MeetingCore
    private var sinks: [SignalingConnectionID: AsyncStream<SignalingOutbound>.Continuation] = [:]
    /// The core's one timer.
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.timerFired() }
    private let media: MeetingMedia?
    /// The outputs of one received packet, reused from packet to packet.
    private var forwarded: [MeetingMediaOutput] = []
    private let openedAt: NIODeadline
    private let events: MeetingEventRouter?
    /// The file writer of each recording the core runs, and whom to tell when it has ended.
    private var recordings: [String: (writer: RecordingFileWriter,
                                      ended: @Sendable (_ stopped: Bool, _ succeeded: Bool) -> Void)] = [:]

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
        var logger = logger
        logger[metadataKey: "meeting"] = "\(meetingId)"
        self.logger = logger
        self.openedAt = eventLoop.now
        core = MeetingCore(meetingId: meetingId, configuration: configuration,
                           media: context.map { MeetingCore.MediaSetup(certificate: $0.certificate,
                                                                       candidateAddress: $0.candidateAddress) },
                           logger: logger, now: eventLoop.now)
        self.media = context.map { MeetingMedia(eventLoop: eventLoop, context: $0) }
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
            self.apply { $0.disconnected(connection, now: $1) }
        }
    }

    /// Ends the meeting for everyone (it was deleted or expired): every session is told and closed, and the media
    /// (connections, mixer, codecs, timers) is released at once.
    public func endMeeting() {
        eventLoop.execute { self.apply { $0.endMeeting(now: $1) } }
    }

    /// Records the meeting for media capture pipeline `setup.pipelineId` into `writer` (a recording already running
    /// for another pipeline is stopped first). `ended` is called once the recording is over and every file operation
    /// it gave is written: `stopped` true when it ended for good (``stopRecording(_:)``, the meeting's end), false
    /// when the server stops (``suspendRecording(_:)``); `succeeded` false when a file could not be written.
    func startRecording(_ setup: MeetingRecordingSetup, writer: RecordingFileWriter,
                        ended: @escaping @Sendable (_ stopped: Bool, _ succeeded: Bool) -> Void) {
        eventLoop.execute {
            self.recordings[setup.pipelineId] = (writer, ended)
            self.apply { $0.startRecording(setup, now: $1) }
        }
    }

    /// Stops the recording of `pipelineId`: its files are finished.
    func stopRecording(_ pipelineId: String) {
        eventLoop.execute { self.apply { $0.stopRecording(pipelineId, stopped: true, now: $1) } }
    }

    /// Finishes the files of the recording of `pipelineId` without stopping its pipeline (the server stops); the
    /// future completes once the operations are handed to the writer.
    func suspendRecording(_ pipelineId: String) -> EventLoopFuture<Void> {
        eventLoop.submit { self.apply { $0.stopRecording(pipelineId, stopped: false, now: $1) } }
    }

    /// How long no attendee has had an audio connection: zero while one has; for a meeting without media, the time
    /// since the room opened.
    public func audioIdleTime() -> EventLoopFuture<TimeAmount> {
        eventLoop.submit {
            let now = self.eventLoop.now
            guard let media = self.core.media else { return now - self.openedAt }
            return media.audioIdleSince.map { now - $0 } ?? .zero
        }
    }

    /// Every attendee that has joined this room, present or gone (``MeetingSignalingCore/liveAttendees()``), read
    /// on the room's event loop.
    public func liveAttendees() -> EventLoopFuture<[LiveAttendeeState]> {
        eventLoop.submit { self.core.signaling.liveAttendees() }
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
            self.apply { $0.endAllTransports(now: $1) }
        }
    }

    // MARK: - Running the core

    private func apply(_ step: (MeetingCore, ClockReading) -> [MeetingCoreEffect]) {
        eventLoop.assertInEventLoop()
        perform(step(core, ClockReading(eventLoop: eventLoop)))
        timer.follow(core.nextDeadline)
    }

    private func timerFired() {
        let started = eventLoop.now
        let mixes = core.isMediaDue(now: started)
        apply { $0.tick(now: $1) }
        guard mixes, let counters = media?.counters else { return }
        let spent = (eventLoop.now - started).nanoseconds
        counters.totals.mixerTicks += 1
        counters.totals.mixerTickNanoseconds += spent
        counters.totals.mixerTickMaximumNanoseconds = max(counters.totals.mixerTickMaximumNanoseconds, spent)
    }

    /// A current transport's event: packets into the core (the one per-packet path: its outputs go out from a
    /// reused list), its state changes too.
    private func transportEvent(_ connection: SignalingConnectionID, _ event: PeerConnectionEvent) {
        switch event {
        case .rtp(let packet):
            // The list is taken out while in use, so a reentrant call gets one of its own; it comes back empty with
            // its capacity, and forwarding allocates no list.
            var outputs = forwarded
            forwarded = []
            let started = eventLoop.now
            let effects = core.receive(packet, from: connection, now: started, clock: { ClockReading(eventLoop: eventLoop) },
                                       into: &outputs)
            if !outputs.isEmpty || !effects.isEmpty {
                send(draining: &outputs)
                perform(effects)
                timer.follow(core.nextDeadline)
            }
            forwarded = outputs
            if let counters = media?.counters {
                counters.totals.packetsRouted += 1
                counters.totals.routingNanoseconds += (eventLoop.now - started).nanoseconds
            }
        case .rtcp(let packets):
            apply { $0.receive(packets, from: connection, now: $1) }
        case .connected(let profile):
            apply { $0.transportConnected(connection, now: $1) }
            logger.info("media connected", metadata: ["attendee": "\(core.attendeeId(of: connection) ?? "")",
                                                      "srtp": "\(profile)"])
        case .failed, .closed:
            logger.debug("media ended", metadata: ["attendee": "\(core.attendeeId(of: connection) ?? "")",
                                                   "event": "\(event)"])
            apply { $0.transportEnded(connection, now: $1) }
        case .iceConnected, .pathChanged:
            break
        }
    }

    /// Sends the packets of `outputs` in order and leaves it empty with its capacity. Each is moved out before it is
    /// sent, so SRTP protects it in place without copying it; once the port's outbox has copied the datagram, its
    /// array goes back to the core's pool.
    private func send(draining outputs: inout [MeetingMediaOutput]) {
        outputs.reverse()
        while let output = outputs.popLast() {
            switch consume output {
            case .rtp(let connection, let packet):
                sendRTP(packet, on: connection)
            case .rtcp(let connection, let compound):
                media?.sendRTCP(compound, on: connection)
            default:
                // The core leaves only packets here.
                break
            }
        }
    }

    /// Sends an RTP packet on its transport (consumed, so SRTP protects it in place); once the port's outbox has
    /// copied the datagram, its array goes back to the core's pool.
    private func sendRTP(_ packet: consuming [UInt8], on connection: SignalingConnectionID) {
        if let spent = media?.sendRTP(packet, on: connection) { core.recycle(consume spent) }
    }

    private func perform(_ effects: consuming [MeetingCoreEffect]) {
        var effects = effects
        effects.reverse()
        while let effect = effects.popLast() {
            switch consume effect {
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
                    apply { $0.disconnected(target, now: $1) }
                }
            case .close(let target, let code):
                if let sink = sinks.removeValue(forKey: target) {
                    sink.yield(.close(code))
                    sink.finish()
                }
            case .startTransport(let connection, let peer, let localICE):
                media?.start(connection, peer: peer, localICE: localICE) { [weak self] connection, event in
                    self?.transportEvent(connection, event)
                }
            case .endTransport(let connection):
                media?.end(connection)
            case .rtp(let connection, let packet):
                sendRTP(packet, on: connection)
            case .rtcp(let connection, let compound):
                media?.sendRTCP(compound, on: connection)
            case .recording(let pipelineId, let operations):
                recordings[pipelineId]?.writer.apply(operations)
            case .recordingEnded(let pipelineId, let stopped):
                guard let recording = recordings.removeValue(forKey: pipelineId) else { continue }
                recording.writer.close { succeeded in recording.ended(stopped, succeeded) }
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
}
