import CarillonRTC
import Logging
import NIOCore

/// The media shell of one meeting: one ICE-lite peer connection per attendee session, all on the shared media port
/// and all owned by the meeting's event loop, around the sans-IO ``MeetingMediaCore`` that decides everything else.
///
/// It answers offers, registers the connections on the port, feeds the core what they report, sends what the core
/// returns and keeps one timer at the core's deadline. Time is the loop's (`eventLoop.now`).
///
/// Threading: confined to the meeting's event loop (the room calls it there; the drivers run there). `@unchecked
/// Sendable` only so its timer can reach it on that loop: the loop is the lock.
final class MeetingMedia: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private let context: MediaContext
    private let logger: Logger
    private let core: MeetingMediaCore
    private var drivers: [SignalingConnectionID: PeerConnectionDriver] = [:]
    /// The outputs of one received packet, reused from packet to packet.
    private var forwarded: [MeetingMediaOutput] = []
    /// The last negotiation on each socket: a re-offer on the same transport keeps its connection.
    private var negotiations: [SignalingConnectionID: MeetingMediaNegotiation] = [:]
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in self?.tick() }
    /// The loop's media counters, shared with the other meetings of the loop.
    private let counters: MediaLoopCounters
    /// Called on the event loop with every attendee's volume and signal strength when any changed (AUDIO_METADATA).
    var onAudioMetadata: (([(attendeeId: String, volume: UInt32?, signalStrength: UInt32?)]) -> Void)?
    /// Called on the event loop when a session's camera stops arriving (`paused`) or arrives again.
    var onVideoSourcePaused: ((SignalingConnectionID, Bool) -> Void)?
    /// Called with the measured bitrate of every video stream, once a second (BITRATES).
    var onVideoBitrates: (([(streamId: UInt32, bitrate: Int)]) -> Void)?
    /// Called with a receiver's sources its allocation paused (true) or resumed (false), for S→C PAUSE/RESUME.
    var onVideoDownlinkPaused: ((SignalingConnectionID, [UInt32], Bool) -> Void)?
    /// Called with a receiver's new downlink estimate in kbps, for BITRATES.
    var onVideoDownlinkEstimate: ((SignalingConnectionID, UInt32) -> Void)?
    /// Whether an attendee is muted (the signaling core owns the roster).
    var isMuted: ((String) -> Bool)?
    /// Whether an attendee's capabilities let it hear the meeting (the signaling core owns them).
    var hearsMeeting: ((String) -> Bool)?

    init(eventLoop: any EventLoop, context: MediaContext, logger: Logger) {
        self.eventLoop = eventLoop
        self.context = context
        self.logger = logger
        core = MeetingMediaCore(now: eventLoop.now)
        counters = context.counters.counters(for: eventLoop)
        eventLoop.execute { [weak self] in
            guard let self else { return }
            self.counters.liveDrops[ObjectIdentifier(self)] = { [weak self] in self?.liveDrops ?? 0 }
        }
    }

    deinit {
        let counters = self.counters, key = ObjectIdentifier(self)
        counters.eventLoop.execute { counters.liveDrops[key] = nil }
    }

    /// Datagrams dropped by the connections still open.
    private var liveDrops: Int {
        drivers.values.reduce(0) { $0 + $1.connection.statistics.datagramsDropped }
    }

    /// Since when no session has been connected; nil while one is.
    var audioIdleSince: NIODeadline? { core.audioIdleSince }

    /// Answers a session's offer: the first Opus audio m-line, the camera m-line when `video` allows sending and the
    /// receive m-lines that carry a stream. A re-offer on the same transport (a browser's renegotiation) keeps the
    /// running connection and reconfigures only the video; any other later offer replaces the connection.
    func answer(offer text: String, attendeeId: String, connection: SignalingConnectionID,
                video: VideoSubscribeRequest) throws -> SubscribeAnswer {
        eventLoop.preconditionInEventLoop()
        let previous = drivers[connection] == nil ? nil : negotiations[connection]
        let negotiated = try MeetingMediaNegotiation(offer: text, certificate: context.certificate,
                                                     candidate: context.candidateAddress, video: video,
                                                     previous: previous)
        if negotiated.continuesTransport {
            negotiations[connection] = negotiated
            perform(core.renegotiated(connection, negotiation: negotiated, now: eventLoop.now))
            timer.follow(core.nextDeadline)
            return SubscribeAnswer(sdp: negotiated.answer, tracks: negotiated.tracks)
        }
        let connectionCore = try PeerConnection(configuration: negotiated.configuration)
        end(connection)
        let driver = context.port.makeDriver(for: connectionCore, on: eventLoop)
        perform(core.add(connection, attendeeId: attendeeId, negotiation: negotiated, now: eventLoop.now))
        drivers[connection] = driver
        negotiations[connection] = negotiated
        context.port.register(driver, credentials: negotiated.configuration.localICE)
        driver.start { [weak self] event in self?.handle(event, from: connection, driver: driver) }
        return SubscribeAnswer(sdp: negotiated.answer, tracks: negotiated.tracks)
    }

    /// A receiver paused or resumed remote streams (C→S PAUSE/RESUME).
    func setVideoPaused(_ paused: Bool, streamIds: [UInt32], connection: SignalingConnectionID) {
        perform(core.setVideoPaused(paused, streamIds: streamIds, for: connection, now: eventLoop.now))
        timer.follow(core.nextDeadline)
    }

    /// A receiver chose another layer of the source it receives on `mid` (REMOTE_VIDEO_UPDATE).
    func selectVideoLayer(_ streamId: UInt32, mid: String, connection: SignalingConnectionID) {
        perform(core.selectVideoLayer(streamId, mid: mid, for: connection, now: eventLoop.now))
        timer.follow(core.nextDeadline)
    }

    /// A receiver in server-side adaptation changed its preferences (REMOTE_VIDEO_UPDATE).
    func updateVideoPreferences(_ updated: [String: VideoDownlinkPreference], removedMids: [String],
                                connection: SignalingConnectionID) {
        perform(core.updateVideoPreferences(updated, removedMids: removedMids, for: connection, now: eventLoop.now))
        timer.follow(core.nextDeadline)
    }

    /// Ends a session's media (it left, its socket ended, or it re-offered).
    func end(_ connection: SignalingConnectionID) {
        negotiations[connection] = nil
        guard let driver = drivers.removeValue(forKey: connection) else { return }
        counters.totals.datagramsDroppedByConnections += driver.connection.statistics.datagramsDropped
        context.port.unregister(driver)
        driver.stop()
        core.remove(connection, now: eventLoop.now)
        timer.follow(core.nextDeadline)
    }

    /// Ends every session (the meeting ended or the server is stopping).
    func endAll() {
        for connection in Array(drivers.keys) { end(connection) }
    }

    /// Leaves a muted attendee out of the mix, or takes it back.
    func setMuted(_ muted: Bool, attendeeId: String) {
        core.setMuted(muted, attendeeId: attendeeId)
    }

    /// Sends an attendee the mix, or silence when its capabilities do not let it hear the meeting.
    func setHearsMeeting(_ hears: Bool, attendeeId: String) {
        core.setHearsMeeting(hears, attendeeId: attendeeId)
    }

    private func tick() {
        let started = eventLoop.now
        perform(core.tick(now: started))
        timer.follow(core.nextDeadline)
        let spent = (eventLoop.now - started).nanoseconds
        counters.totals.mixerTicks += 1
        counters.totals.mixerTickNanoseconds += spent
        counters.totals.mixerTickMaximumNanoseconds = max(counters.totals.mixerTickMaximumNanoseconds, spent)
    }

    private func perform(_ outputs: consuming [MeetingMediaOutput]) {
        var outputs = outputs
        perform(draining: &outputs)
    }

    /// Carries out `outputs` in order and leaves the array empty with its capacity. Each output is moved out before
    /// it is used, so a packet reaches its driver unshared and SRTP protects it in place without copying it; once
    /// the port's outbox has copied the datagram, its array returns to the core's pool.
    private func perform(draining outputs: inout [MeetingMediaOutput]) {
        outputs.reverse()
        while let output = outputs.popLast() {
            switch consume output {
            case .rtp(let connection, let packet):
                // The outbox has copied the datagram by the time it comes back: its array goes back to the pool
                // the core builds downlink packets in.
                if let spent = drivers[connection]?.sendRTP(packet) { core.recycle(consume spent) }
            case .rtcp(let connection, let compound):
                drivers[connection]?.sendRTCP(compound)
            case .audioMetadata(let states):
                onAudioMetadata?(states)
            case .videoSourcePaused(let connection, let paused):
                onVideoSourcePaused?(connection, paused)
            case .videoBitrates(let rates):
                onVideoBitrates?(rates)
            case .videoDownlinkPaused(let connection, let groupIds, let paused):
                onVideoDownlinkPaused?(connection, groupIds, paused)
            case .videoDownlinkEstimate(let connection, let kbps):
                onVideoDownlinkEstimate?(connection, kbps)
            }
        }
    }

    private func handle(_ event: PeerConnectionEvent, from connection: SignalingConnectionID, driver: PeerConnectionDriver) {
        // Events of a replaced connection are stale.
        guard drivers[connection] === driver else { return }
        switch event {
        case .rtp(let packet):
            // The buffer is taken out while in use, so a reentrant call gets one of its own; it comes back empty with
            // its capacity, and forwarding allocates no list.
            var outputs = forwarded
            forwarded = []
            let started = eventLoop.now
            core.receive(packet, from: connection, now: started, into: &outputs)
            if !outputs.isEmpty {
                perform(draining: &outputs)
                timer.follow(core.nextDeadline)
            }
            forwarded = outputs
            counters.totals.packetsRouted += 1
            counters.totals.routingNanoseconds += (eventLoop.now - started).nanoseconds
        case .rtcp(let packets):
            perform(core.receive(packets, from: connection, now: eventLoop.now))
            timer.follow(core.nextDeadline)
        case .connected(let profile):
            let attendeeId = core.sessions[connection]?.attendeeId ?? ""
            perform(core.connected(connection, muted: isMuted?(attendeeId) ?? false,
                                   hearsMeeting: hearsMeeting?(attendeeId) ?? true, now: eventLoop.now))
            timer.follow(core.nextDeadline)
            logger.info("media connected", metadata: ["attendee": "\(attendeeId)", "srtp": "\(profile)"])
        case .failed, .closed:
            logger.debug("media ended", metadata: ["attendee": "\(core.sessions[connection]?.attendeeId ?? "")",
                                                   "event": "\(event)"])
            end(connection)
        case .iceConnected, .pathChanged:
            break
        }
    }
}
