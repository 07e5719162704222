import CarillonProtocol
import CarillonRTC
import Logging
import NIOCore

/// One meeting on the server as a synchronous state machine (sans-IO): the signaling core
/// (``MeetingSignalingCore``: roster, JOIN, INDEX, SUBSCRIBE, mute, data messages) and the media core
/// (``MeetingMediaCore``: the mixer, the video router, reports) wired together, with the negotiation of each
/// session's media transport. Fed the sockets' frames, the transports' events and packets and the time, it returns
/// ``MeetingCoreEffect``s and its next deadline; it never reads a clock or touches a socket.
///
/// The wiring: a SUBSCRIBE's offer is answered here (``MeetingMediaNegotiation``; a re-offer on the same transport
/// keeps it and reconfigures the video, any other replaces it with a new ``PeerConnection`` for the shell to run);
/// the signaling core's video commands (pause, layer, preferences) go to the router; the media core's reports
/// (volumes, a camera paused at its source, bitrates, a receiver's paused sources and estimate) become signaling
/// frames. The signaling core owns mute and what each attendee may hear: the media core is told each change and
/// asked nothing per packet.
///
/// ``MeetingRoom`` and ``MeetingMedia`` are its shell on the server; the virtual-time meeting of the tests drives the
/// same type. Threading: not thread-safe; the meeting's event loop owns it.
final class MeetingCore {
    /// What a meeting that serves media needs to answer offers: the server's DTLS identity, the media port's
    /// address, and where each answer's SSRCs come from (random; seeded in tests).
    struct MediaSetup {
        var certificate: DTLSCertificate
        var candidateAddress: STUNAddress
        var makeSSRC: () -> UInt32 = { .random(in: 1...UInt32.max) }
    }

    /// The signaling part (roster, connections, publications).
    private(set) var signaling: MeetingSignalingCore
    /// The media part; nil for a meeting that serves no media (SUBSCRIBE gets 501).
    let media: MeetingMediaCore?
    private let setup: MediaSetup?
    private let logger: Logger
    /// The negotiation of every session whose transport runs: a re-offer is answered against it.
    private var transports: [SignalingConnectionID: MeetingMediaNegotiation] = [:]
    /// The signaling core's deadline as of its last step. Computing it walks every connection, and the shell reads
    /// ``nextDeadline`` after every forwarded packet, so it is read once per signaling step instead.
    private var signalingDeadline: NIODeadline?

    /// Creates meeting `meetingId`, opened at `now`; without `media` it serves signaling only.
    init(meetingId: String, configuration: MeetingSignalingCore.Configuration, media: MediaSetup?, logger: Logger,
         now: NIODeadline) {
        signaling = MeetingSignalingCore(meetingId: meetingId, configuration: configuration)
        self.media = media.map { _ in MeetingMediaCore(now: now) }
        setup = media
        self.logger = logger
    }

    /// The earliest deadline of the parts: call ``tick(now:)`` then.
    var nextDeadline: NIODeadline? { signalingDeadline.earlier(media?.nextDeadline) }

    /// Whether the media part is due at `now` (a shell's measure of the mixer's ticks).
    func isMediaDue(now: NIODeadline) -> Bool { media?.nextDeadline.map { $0 <= now } ?? false }

    /// The attendee of a session whose transport runs.
    func attendeeId(of connection: SignalingConnectionID) -> String? { media?.sessions[connection]?.attendeeId }

    // MARK: Sockets

    /// Registers an authenticated socket allowed what `permissions` allow.
    func accept(_ connection: SignalingConnectionID, identity: AttendeeIdentity,
                permissions: AttendeeMediaPermissions = .all, now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.accept(connection, identity: identity, permissions: permissions, now: $1) }
    }

    /// A decoded frame from a socket.
    func receive(_ frame: SdkSignalFrame, from connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.receive(frame, from: connection, now: $1) }
    }

    /// A message from a socket that did not decode.
    func receiveMalformed(from connection: SignalingConnectionID, reason: String, now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.receiveMalformed(from: connection, reason: reason, now: $1) }
    }

    /// A socket ended (however): its transport ends with it.
    func disconnected(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        endTransport(connection, now: now) + signal(now) { $0.disconnected(connection, now: $1) }
    }

    // MARK: The control API

    /// An attendee's new capabilities, applied to its live sessions.
    func updatePermissions(_ attendeeId: String, capabilities: ControlAPI.AttendeeCapabilities,
                           now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.updatePermissions(attendeeId, capabilities: capabilities, now: $1) }
    }

    /// A deleted attendee leaves.
    func removeAttendee(_ attendeeId: String, now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.removeAttendee(attendeeId, now: $1) }
    }

    /// The meeting ends for everyone: every session is told and closed, every transport ends, a recording stops.
    func endMeeting(now: ClockReading) -> [MeetingCoreEffect] {
        signal(now) { $0.endMeeting(now: $1) } + endAllTransports(now: now) + endRecording(stopped: true, now: now)
    }

    // MARK: Recording

    /// Starts recording for a media capture pipeline (a meeting records for one pipeline at a time: a running one is
    /// finished first, as stopped).
    func startRecording(_ setup: MeetingRecordingSetup, now: ClockReading) -> [MeetingCoreEffect] {
        guard let media else { return [.recordingEnded(pipelineId: setup.pipelineId, stopped: true)] }
        var effects = endRecording(stopped: true, now: now)
        var attendees: [String: String] = [:]
        for participant in signaling.participants.values {
            attendees[participant.identity.attendeeId] = participant.identity.externalUserId
        }
        var outputs = media.startRecording(setup, start: now, attendees: attendees)
        effects += route(&outputs, now: now)
        return effects
    }

    /// Ends the recording of `pipelineId` if it runs: its files are finished. `stopped` false: the server stops, and
    /// the pipeline goes on at its next start.
    func stopRecording(_ pipelineId: String, stopped: Bool, now: ClockReading) -> [MeetingCoreEffect] {
        guard media?.recorder?.setup.pipelineId == pipelineId else {
            return stopped ? [.recordingEnded(pipelineId: pipelineId, stopped: true)] : []
        }
        return endRecording(stopped: stopped, now: now)
    }

    private func endRecording(stopped: Bool, now: ClockReading) -> [MeetingCoreEffect] {
        guard let media, let pipelineId = media.recorder?.setup.pipelineId else { return [] }
        var outputs = media.stopRecording()
        return route(&outputs, now: now) + [.recordingEnded(pipelineId: pipelineId, stopped: stopped)]
    }

    /// A line of the recording's `meeting-events/`, when one runs.
    private func recordEvent(_ identity: AttendeeIdentity, _ change: AttendeeActivity, now: ClockReading) -> [MeetingCoreEffect] {
        guard let recorder = media?.recorder else { return [] }
        let content = identity.attendeeId.hasSuffix(JoinToken.contentSuffix)
        let type = switch change {
        case .joined: content ? "AttendeeContentJoined" : "AttendeeJoined"
        case .left: content ? "AttendeeContentLeft" : "AttendeeLeft"
        case .dropped: content ? "AttendeeContentDropped" : "AttendeeDropped"
        case .videoStarted: content ? "AttendeeContentVideoStarted" : "AttendeeVideoStarted"
        case .videoStopped: content ? "AttendeeContentVideoStopped" : "AttendeeVideoStopped"
        }
        let operations = recorder.event(type, attendeeId: identity.attendeeId, externalUserId: identity.externalUserId,
                                        now: now)
        return operations.isEmpty ? [] : [.recording(pipelineId: recorder.setup.pipelineId, operations)]
    }

    /// Every transport ends (the meeting ended, the server stops).
    func endAllTransports(now: ClockReading) -> [MeetingCoreEffect] {
        transports.keys.sorted().flatMap { endTransport($0, now: now) }
    }

    // MARK: Transports

    /// A session's transport is up (ICE and DTLS done): its audio joins the mix, muted and hearing as signaling says.
    func transportConnected(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        guard let media, let attendeeId = attendeeId(of: connection) else { return [] }
        var outputs = media.connected(connection, muted: signaling.isMuted(attendeeId),
                                      hearsMeeting: signaling.hearsMeeting(attendeeId), now: now.monotonic)
        return route(&outputs, now: now)
    }

    /// A session's transport failed or was closed by the client: its media ends.
    func transportEnded(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        endTransport(connection, now: now)
    }

    /// A decrypted RTP packet of a session that arrived at `now`, appending what to send to `outputs` (reused by the
    /// shell from packet to packet, so forwarding allocates no list). Only packets are left in `outputs`; what the
    /// packet means for signaling (a paused camera back) comes back as effects, stamped with `clock`, which is read
    /// only then (the wall clock is not read per packet).
    func receive(_ packet: RTPPacket, from connection: SignalingConnectionID, now: NIODeadline, clock: () -> ClockReading,
                 into outputs: inout [MeetingMediaOutput]) -> [MeetingCoreEffect] {
        guard let media else { return [] }
        let first = outputs.count
        media.receive(packet, from: connection, now: now, into: &outputs)
        guard outputs[first...].contains(where: { !$0.isPacket }) else { return [] }
        var reports: [MeetingMediaOutput] = []
        outputs.removeAll { output in
            guard !output.isPacket else { return false }
            reports.append(output)
            return true
        }
        return route(&reports, now: clock())
    }

    /// A compound of RTCP packets from a session.
    func receive(_ packets: [RTCPPacket], from connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        guard let media else { return [] }
        var outputs = media.receive(packets, from: connection, now: now.monotonic)
        return route(&outputs, now: now)
    }

    /// Takes back the array of an RTP packet the shell has sent, for a later downlink packet.
    func recycle(_ datagram: consuming [UInt8]) {
        media?.recycle(consume datagram)
    }

    /// Runs what is due at `now`: signaling's timers, the mix, the reports, the router's.
    func tick(now: ClockReading) -> [MeetingCoreEffect] {
        var effects: [MeetingCoreEffect] = []
        if let due = signalingDeadline, due <= now.monotonic {
            effects += signal(now) { $0.tick(now: $1) }
        }
        if let media, isMediaDue(now: now.monotonic) {
            var outputs = media.tick(now: now.monotonic)
            effects += route(&outputs, now: now)
        }
        return effects
    }

    // MARK: Wiring

    /// Steps the signaling core and carries out what it asks of the media side.
    private func signal(_ now: ClockReading,
                        _ step: (inout MeetingSignalingCore, ClockReading) -> [MeetingSignalingOutput]) -> [MeetingCoreEffect] {
        var effects: [MeetingCoreEffect] = []
        let outputs = step(&signaling, now)
        signalingDeadline = signaling.nextDeadline
        for output in outputs {
            switch output {
            case .send(let targets, let frame):
                effects.append(.send(targets, frame))
            case .close(let target, let code):
                effects.append(.close(target, code: code))
                effects += endTransport(target, now: now)
            case .subscribe(let target, let attendeeId, let offer, let video):
                let (answering, result) = answer(offer, attendeeId: attendeeId, connection: target, video: video, now: now)
                effects += answering
                effects += signal(now) { $0.subscribeAnswered(target, answer: result, now: $1) }
            case .pauseVideo(let target, let streamIds, let paused):
                var outputs = media?.setVideoPaused(paused, streamIds: streamIds, for: target, now: now.monotonic) ?? []
                effects += route(&outputs, now: now)
            case .selectVideoLayer(let target, let mid, let streamId):
                var outputs = media?.selectVideoLayer(streamId, mid: mid, for: target, now: now.monotonic) ?? []
                effects += route(&outputs, now: now)
            case .updateVideoPreferences(let target, let updated, let removedMids):
                var outputs = media?.updateVideoPreferences(updated, removedMids: removedMids, for: target,
                                                            now: now.monotonic) ?? []
                effects += route(&outputs, now: now)
            case .endMedia(let target):
                effects += endTransport(target, now: now)
            case .audioMuted(let attendeeId, let muted):
                media?.setMuted(muted, attendeeId: attendeeId)
                if let recorder = media?.recorder {
                    let operations = recorder.event(muted ? "AttendeeAudioMuted" : "AttendeeAudioUnmuted",
                                                    attendeeId: attendeeId, externalUserId: nil, now: now)
                    if !operations.isEmpty { effects.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
                }
            case .audioReceiving(let attendeeId, let receives):
                media?.setHearsMeeting(receives, attendeeId: attendeeId)
            case .activity(let identity, let change):
                effects.append(.activity(identity, change))
                effects += recordEvent(identity, change, now: now)
            case .dataMessagesDelivered(let payloads):
                if let recorder = media?.recorder {
                    let operations = recorder.dataMessages(payloads, now: now)
                    if !operations.isEmpty { effects.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
                }
            }
        }
        return effects
    }

    /// Carries out what the media core returned, emptying `outputs`: packets go to the shell (moved, not copied, so
    /// SRTP protects them in place), reports become signaling frames.
    private func route(_ outputs: inout [MeetingMediaOutput], now: ClockReading) -> [MeetingCoreEffect] {
        var effects: [MeetingCoreEffect] = []
        effects.reserveCapacity(outputs.count)
        outputs.reverse()
        while let output = outputs.popLast() {
            switch consume output {
            case .rtp(let connection, let packet):
                effects.append(.rtp(connection, packet))
            case .rtcp(let connection, let compound):
                effects.append(.rtcp(connection, compound))
            case .audioMetadata(let states):
                effects += signal(now) { core, now in core.audioMetadata(states, now: now) }
            case .videoSourcePaused(let connection, let paused):
                effects += signal(now) { $0.videoSourcePaused(connection, paused: paused, now: $1) }
            case .videoBitrates(let rates):
                effects += signal(now) { $0.videoBitrates(rates, now: $1) }
            case .videoDownlinkPaused(let connection, let groupIds, let paused):
                effects += signal(now) { core, now in
                    core.videoDownlinkPaused(connection, groupIds: groupIds, paused: paused, now: now)
                }
            case .videoDownlinkEstimate(let connection, let kbps):
                effects += signal(now) { $0.videoDownlinkEstimate(connection, kbps: kbps, now: $1) }
            case .recording(let pipelineId, let operations):
                effects.append(.recording(pipelineId: pipelineId, operations))
            }
        }
        return effects
    }

    /// Answers a SUBSCRIBE's offer: a re-offer on the running transport reconfigures the video; any other offer
    /// ends the session's transport and starts a new one. The result becomes SUBSCRIBE_ACK.
    private func answer(_ offer: String, attendeeId: String, connection: SignalingConnectionID,
                        video: VideoSubscribeRequest, now: ClockReading)
        -> ([MeetingCoreEffect], Result<SubscribeAnswer, SubscribeRefusal>) {
        guard let media, let setup else {
            return ([], .failure(SubscribeRefusal(status: 501, message: "this server does not serve media")))
        }
        do {
            let negotiated = try MeetingMediaNegotiation(offer: offer, certificate: setup.certificate,
                                                         candidate: setup.candidateAddress, video: video,
                                                         previous: transports[connection], makeSSRC: setup.makeSSRC)
            var effects: [MeetingCoreEffect] = []
            if negotiated.continuesTransport {
                transports[connection] = negotiated
                var outputs = media.renegotiated(connection, negotiation: negotiated, now: now.monotonic)
                effects = route(&outputs, now: now)
            } else {
                let peer = try PeerConnection(configuration: negotiated.configuration)
                effects = endTransport(connection, now: now)
                var outputs = media.add(connection, attendeeId: attendeeId, negotiation: negotiated, now: now.monotonic)
                effects += route(&outputs, now: now)
                transports[connection] = negotiated
                effects.append(.startTransport(connection, peer, localICE: negotiated.configuration.localICE))
            }
            return (effects, .success(SubscribeAnswer(sdp: negotiated.answer, tracks: negotiated.tracks)))
        } catch {
            logger.info("SUBSCRIBE refused", metadata: ["attendee": "\(attendeeId)", "reason": "\(error)"])
            return ([], .failure(SubscribeRefusal(status: 400, message: "the offer cannot be answered: \(error)")))
        }
    }

    /// Ends a session's transport and its media state, if it has one.
    private func endTransport(_ connection: SignalingConnectionID, now: ClockReading) -> [MeetingCoreEffect] {
        guard transports.removeValue(forKey: connection) != nil else { return [] }
        var outputs = media?.remove(connection, now: now.monotonic) ?? []
        return route(&outputs, now: now) + [.endTransport(connection)]
    }
}
