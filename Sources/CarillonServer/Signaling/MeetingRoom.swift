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

    /// Creates the room of a meeting on `eventLoop`; without a media context SUBSCRIBE is refused.
    public init(
        meetingId: String,
        eventLoop: any EventLoop,
        configuration: MeetingSignalingCore.Configuration,
        media context: MediaContext? = nil,
        logger: Logger
    ) {
        self.meetingId = meetingId
        self.eventLoop = eventLoop
        self.core = MeetingSignalingCore(meetingId: meetingId, configuration: configuration)
        var logger = logger
        logger[metadataKey: "meeting"] = "\(meetingId)"
        self.logger = logger
        self.media = context.map { MeetingMedia(eventLoop: eventLoop, context: $0, logger: logger) }
        media?.onAudioMetadata = { [weak self] states in
            self?.apply { core, now in core.audioMetadata(states, now: now) }
        }
        media?.rosterState = { [weak self] attendeeId in
            guard let self, let streamId = self.core.streamId(of: attendeeId) else { return nil }
            return (streamId, self.core.isMuted(attendeeId))
        }
    }

    /// Adds an authenticated socket; frames for it go into `sink`.
    public func attach(
        _ connection: SignalingConnectionID,
        identity: AttendeeIdentity,
        sink: AsyncStream<SignalingOutbound>.Continuation
    ) {
        eventLoop.execute {
            self.sinks[connection] = sink
            self.apply { $0.accept(connection, identity: identity, now: $1) }
        }
    }

    /// Hands a decoded frame from a socket to the meeting.
    public func receive(_ frame: SdkSignalFrame, from connection: SignalingConnectionID) {
        eventLoop.execute { self.apply { $0.receive(frame, from: connection, now: $1) } }
    }

    /// Reports a message from a socket that did not decode.
    public func receiveMalformed(from connection: SignalingConnectionID, reason: String) {
        eventLoop.execute { self.apply { $0.receiveMalformed(from: connection, reason: reason, now: $1) } }
    }

    /// Reports that a socket has ended.
    public func detach(_ connection: SignalingConnectionID) {
        eventLoop.execute {
            self.sinks.removeValue(forKey: connection)?.finish()
            self.media?.end(connection)
            self.apply { $0.disconnected(connection, now: $1) }
        }
    }

    /// Ends the meeting for everyone (it was deleted).
    public func endMeeting() {
        eventLoop.execute { self.apply { $0.endMeeting(now: $1) } }
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
        let outputs = step(&core, .now())
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
                for target in targets { sinks[target]?.yield(.message(buffer)) }
            case .close(let target, let code):
                if let sink = sinks.removeValue(forKey: target) {
                    sink.yield(.close(code))
                    sink.finish()
                }
                media?.end(target)
            case .subscribe(let target, let attendeeId, let offer):
                send(subscribeAck(for: offer, attendeeId: attendeeId, connection: target), to: target)
            case .endMedia(let target):
                media?.end(target)
            case .audioMuted(let attendeeId, let muted):
                media?.setMuted(muted, attendeeId: attendeeId)
            }
        }
    }

    /// Answers an offer (SUBSCRIBE_ACK with the SDP answer), or refuses it with an error status the client reads as
    /// terminal (a malformed or unanswerable offer will not get better on retry).
    private func subscribeAck(for offer: String, attendeeId: String, connection: SignalingConnectionID) -> SdkSignalFrame {
        var frame = SdkSignalFrame()
        frame.timestampMs = ClockReading.now().unixMilliseconds
        frame.type = .subscribeAck
        var ack = SdkSubscribeAckFrame()
        ack.duplex = .rx
        guard let media else {
            frame.error = Self.error(status: 501, "this server does not serve media")
            frame.suback = ack
            return frame
        }
        do {
            ack.sdpAnswer = try media.answer(offer: offer, attendeeId: attendeeId, connection: connection)
        } catch {
            logger.info("SUBSCRIBE refused", metadata: ["attendee": "\(attendeeId)", "reason": "\(error)"])
            frame.error = Self.error(status: 400, "the offer cannot be answered: \(error)")
        }
        frame.suback = ack
        return frame
    }

    private static func error(status: UInt32, _ message: String) -> SdkErrorFrame {
        var error = SdkErrorFrame()
        error.status = status
        error.description_p = message
        return error
    }

    private func send(_ frame: SdkSignalFrame, to target: SignalingConnectionID) {
        guard let bytes = try? SignalFrameCodec.encode(frame) else {
            logger.error("could not encode a \(frame.type) frame")
            return
        }
        sinks[target]?.yield(.message(ByteBuffer(bytes: bytes)))
    }

    private func rescheduleTimer() {
        timer.follow(core.nextDeadline)
    }
}
