import CarillonCodecs
import CarillonProtocol
import CarillonRTC
import NIOCore

/// The media decisions of one meeting, sans-IO: the mixer, every uplink's level and reception statistics (the one
/// count of its sequence numbers and loss, read by both the AUDIO_METADATA reports and the receiver reports each
/// session gets).
///
/// The shell (``MeetingMedia``) owns the peer connections and one timer: it feeds in what the connections report
/// (media connected, RTP, RTCP, ended) and `now`, sends the ``MeetingMediaOutput``s that come back, and calls
/// ``tick(now:)`` at ``nextDeadline``. Nothing here reads a clock or touches a socket, so a whole meeting's media
/// runs in virtual time in tests.
///
/// One level per packet: read from the `ssrc-audio-level` extension, or, for an uplink without it, measured once by
/// decoding (unless the attendee is muted). The same value goes to the mixer (speaker selection) and to the activity
/// meter (AUDIO_METADATA), so an attendee that is mixed is never reported silent.
///
/// The mixer, with its Opus codecs, exists only while a session is connected: a meeting nobody is in holds none.
///
/// Threading: not thread-safe; the meeting's event loop owns it.
package final class MeetingMediaCore {
    /// One attendee session's media state.
    struct Session {
        let attendeeId: String
        /// The SSRC this server sends the session's audio with.
        let ssrc: UInt32
        /// The Opus payload type the session's offer chose.
        let opusPayloadType: UInt8
        /// The negotiated id of the `ssrc-audio-level` extension, nil when the offer had none.
        let audioLevelExtensionId: UInt8?
        var connected = false
        /// Reception statistics of the session's audio stream, for the receiver reports this server sends it.
        var uplink: UplinkStatistics?
        /// Decodes packets that carry no level, only to measure them; made on first need.
        var levelDecoder: OpusDecoder?
        var levelDecoderUnavailable = false

        /// Counts a packet of the session's audio (a new SSRC, the client restarting its stream, starts new
        /// statistics) and, when `measure`, returns its level measured by decoding it at 16 kHz (enough for a level,
        /// cheaper than 48). The decoder is this measurement's own, so measuring in arrival order does not disturb
        /// playout decoding.
        mutating func record(_ packet: RTPPacket, arrival: NIODeadline, measure: Bool) -> UInt8? {
            if uplink?.ssrc != packet.ssrc {
                // Opus runs a 48 kHz RTP clock whatever it carries (RFC 7587).
                uplink = UplinkStatistics(ssrc: packet.ssrc, statistics: RTPReceiveStatistics(clockRate: 48_000))
            }
            uplink?.statistics.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrival)
            guard measure else { return nil }
            if levelDecoder == nil, !levelDecoderUnavailable {
                levelDecoder = try? OpusDecoder(format: .mono16k)
                levelDecoderUnavailable = levelDecoder == nil
            }
            guard let levelDecoder, let frame = try? levelDecoder.decode(packet.payload) else { return nil }
            return AudioLevel.rfc6464Level(frame)
        }
    }

    /// The statistics of one uplink stream.
    struct UplinkStatistics {
        let ssrc: UInt32
        var statistics: RTPReceiveStatistics
    }

    /// How often each session gets a receiver report about its audio: the client's send-loss metric is one second.
    static let receiverReportInterval = TimeAmount.seconds(1)
    /// How often volumes and signal strengths are measured (and reported when they changed).
    static let activityInterval = TimeAmount.milliseconds(Int64(AudioActivityMeter.interval))

    private let mixerConfiguration: AudioMixer.Configuration
    /// The meeting's video forwarding.
    package private(set) var video = MeetingVideoRouter()
    /// The arrays the meeting's datagrams are built in: the video router borrows one per forwarded copy, and the
    /// shell gives back every sent datagram (``recycle(_:)``) once its outbox has copied it, so forwarding allocates
    /// none in steady state.
    package private(set) var datagramPool = DatagramBufferPool(limit: MeetingMediaCore.datagramPoolLimit)
    /// The most spare datagram arrays one meeting keeps (about 384 KiB): more than one turn of a 10 × 10 meeting
    /// has in flight (a packet per receiver plus what the pacers hold); a key-frame burst beyond it allocates and the
    /// surplus is let go when it comes back.
    package static let datagramPoolLimit = 256
    private(set) var sessions: [SignalingConnectionID: Session] = [:]
    private var activity = AudioActivityMeter()
    /// The meeting's mix, made when a session connects and released when none is connected.
    private(set) var mixer: AudioMixer?
    private var nextActivityReport: NIODeadline?
    private var nextReceiverReports: NIODeadline?
    /// Since when no session has had a connected audio connection; nil while one has.
    private(set) var audioIdleSince: NIODeadline?
    /// The meeting's recording, while a media capture pipeline runs.
    private(set) var recorder: MeetingRecorder?

    /// Creates the media of a meeting that starts, idle, at `now`.
    package init(mixerConfiguration: AudioMixer.Configuration = .init(), now: NIODeadline) {
        self.mixerConfiguration = mixerConfiguration
        audioIdleSince = now
    }

    /// Whether any session has a connected audio connection.
    var hasAudioConnection: Bool { audioIdleSince == nil }

    /// When ``tick(now:)`` is next due; nil while no session is connected.
    package var nextDeadline: NIODeadline? {
        // Read after every packet: folded without a list, so it allocates nothing.
        video.nextDeadline.earlier(mixer?.nextDeadline).earlier(nextActivityReport).earlier(nextReceiverReports)
            .earlier(recorder?.nextDeadline)
    }

    // MARK: Inputs

    /// Adds a negotiated session (not yet connected). An id already present is replaced, as ``remove(_:now:)`` would.
    func add(_ id: SignalingConnectionID, attendeeId: String, ssrc: UInt32, opusPayloadType: UInt8,
             audioLevelExtensionId: UInt8?, now: NIODeadline) {
        remove(id, now: now)
        sessions[id] = Session(attendeeId: attendeeId, ssrc: ssrc, opusPayloadType: opusPayloadType,
                               audioLevelExtensionId: audioLevelExtensionId)
    }

    /// Adds a session from its negotiation: its audio (replacing any earlier session on `id`) and its video.
    package func add(_ id: SignalingConnectionID, attendeeId: String, negotiation: MeetingMediaNegotiation,
                     now: NIODeadline) -> [MeetingMediaOutput] {
        add(id, attendeeId: attendeeId, ssrc: negotiation.ssrc, opusPayloadType: negotiation.opusPayloadType,
            audioLevelExtensionId: negotiation.audioLevelExtensionId, now: now)
        return video.configure(id, negotiation: negotiation, now: now)
    }

    /// Applies a renegotiation on a session's running connection: its audio carries on, its video is reconfigured.
    func renegotiated(_ id: SignalingConnectionID, negotiation: MeetingMediaNegotiation, now: NIODeadline)
        -> [MeetingMediaOutput] {
        guard sessions[id] != nil else { return [] }
        return video.configure(id, negotiation: negotiation, now: now)
    }

    /// A receiver paused or resumed remote streams.
    func setVideoPaused(_ paused: Bool, streamIds: [UInt32], for id: SignalingConnectionID, now: NIODeadline)
        -> [MeetingMediaOutput] {
        video.setPaused(paused, streamIds: streamIds, for: id, now: now)
    }

    /// A receiver in server-side adaptation (mode 4) changed its preferences: REMOTE_VIDEO_UPDATE.
    func updateVideoPreferences(_ updated: [String: VideoDownlinkPreference], removedMids: [String],
                                for id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        video.updatePreferences(updated, removedMids: removedMids, for: id, now: now)
    }

    /// A receiver chose the layer (stream id) its m-line `mid` carries: REMOTE_VIDEO_UPDATE.
    func selectVideoLayer(_ streamId: UInt32, mid: String, for id: SignalingConnectionID, now: NIODeadline)
        -> [MeetingMediaOutput] {
        video.selectLayer(streamId, mid: mid, for: id, now: now)
    }

    /// A session's media connected: it is mixed from now on (unless `muted`), gets the mix (silence unless
    /// `hearsMeeting`), and its video flows.
    @discardableResult
    package func connected(_ id: SignalingConnectionID, muted: Bool, hearsMeeting: Bool = true,
                           now: NIODeadline) -> [MeetingMediaOutput] {
        guard var session = sessions[id], !session.connected else { return [] }
        if mixer == nil {
            // Failing here only happens when libopus refuses the fixed settings; the meeting then has no mix.
            mixer = try? AudioMixer(configuration: mixerConfiguration)
            if let recorder { addToMixer(recorder) }
        }
        session.connected = true
        sessions[id] = session
        activity.add(session.attendeeId)
        // A content share plays nothing: it is mixed (shared audio) but gets no mix.
        let content = session.attendeeId.hasSuffix(JoinToken.contentSuffix)
        mixer?.addParticipant(id, attendeeId: session.attendeeId, outboundSSRC: session.ssrc,
                              payloadType: session.opusPayloadType, receivesMix: !content)
        mixer?.setMuted(muted, for: id)
        mixer?.setHearsMeeting(hearsMeeting, for: id)
        audioIdleSince = nil
        if nextActivityReport == nil { nextActivityReport = now + Self.activityInterval }
        if nextReceiverReports == nil { nextReceiverReports = now + Self.receiverReportInterval }
        return video.connected(id, now: now)
    }

    /// Ends a session's media (it left, its socket ended, its connection failed, or it re-offered); what comes back
    /// finishes the recording of its video.
    @discardableResult
    func remove(_ id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let session = sessions.removeValue(forKey: id) else { return [] }
        var outputs: [MeetingMediaOutput] = []
        if let recorder {
            let operations = recorder.publisherEnded(id)
            if !operations.isEmpty { outputs.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
        }
        video.remove(id)
        mixer?.removeParticipant(id)
        if !sessions.values.contains(where: { $0.attendeeId == session.attendeeId && $0.connected }) {
            activity.remove(session.attendeeId)
        }
        if session.connected, !sessions.values.contains(where: \.connected) {
            // Nobody is connected: drop the codecs and the timers, and start counting idle time.
            mixer = nil
            nextActivityReport = nil
            nextReceiverReports = nil
            audioIdleSince = now
        }
        return outputs
    }

    /// Ends every session (the meeting ended or the server stops).
    func removeAll(now: NIODeadline) {
        for id in Array(sessions.keys) { _ = remove(id, now: now) }
    }

    /// Leaves a muted attendee out of the mix, or takes it back.
    func setMuted(_ muted: Bool, attendeeId: String) {
        for (id, session) in sessions where session.attendeeId == attendeeId {
            mixer?.setMuted(muted, for: id)
        }
    }

    /// Sends an attendee's sessions the mix, or silence.
    func setHearsMeeting(_ hears: Bool, attendeeId: String) {
        for (id, session) in sessions where session.attendeeId == attendeeId {
            mixer?.setHearsMeeting(hears, for: id)
        }
    }

    /// Takes a decrypted RTP packet of a session's uplink: video is forwarded (what to send comes back), audio goes
    /// to the mixer and the activity meter.
    @discardableResult
    func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        receive(packet, from: id, now: now, into: &outputs)
        return outputs
    }

    /// ``receive(_:from:now:)`` appending to the caller's `outputs`, which it reuses from packet to packet: forwarding
    /// a video packet then allocates only each receiver's copy.
    package func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline,
                         into outputs: inout [MeetingMediaOutput]) {
        if video.carriesVideo(packet, from: id) {
            video.receive(packet, from: id, now: now, into: &outputs, pool: &datagramPool)
            if !video.captured.isEmpty { recordCaptured(now: now, into: &outputs) }
            return
        }
        guard let session = sessions[id], session.connected else { return }
        // A muted attendee is neither mixed nor reported as speaking, whatever it still sends.
        let muted = mixer?.isMuted(id) ?? true
        let carried = muted ? nil : packet.audioLevel(extensionId: session.audioLevelExtensionId)
        // Mutated in place through the dictionary: this runs for every packet.
        let measured = sessions[id]?.record(packet, arrival: now, measure: !muted && carried == nil) ?? nil
        let level = carried ?? measured
        activity.record(session.attendeeId, level: level)
        mixer?.receive(packet, from: id, level: level, arrival: now)
    }

    /// Takes back the array of a datagram the shell has sent (consumed), for a later downlink packet to be built in;
    /// arrays too small for a datagram, or beyond the pool's limit, are let go.
    package func recycle(_ datagram: consuming [UInt8]) {
        datagramPool.recycle(consume datagram)
    }

    /// Takes the RTCP packets of one compound from a session: proof its uplink lives (a muted attendee sends no
    /// audio), its sender reports for the LSR/DLSR echo, and its video feedback (what to send comes back).
    @discardableResult
    func receive(_ packets: [RTCPPacket], from id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let session = sessions[id], session.connected else { return [] }
        activity.recordControl(session.attendeeId)
        for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets where ssrc == session.uplink?.ssrc {
            sessions[id]?.uplink?.statistics.senderReportReceived(ntpTimestamp: NTPTimestamp(ntp), arrival: now)
        }
        return video.receive(packets, from: id, now: now)
    }

    /// Does what is due at `now`: the mix (one packet per connected session), the 200 ms activity report, the
    /// one-second receiver reports.
    package func tick(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        if let mixer, let due = mixer.nextDeadline, now >= due {
            for (participant, packet) in mixer.tick(now: now, pool: &datagramPool) {
                guard participant == MeetingRecorder.mixerParticipant else {
                    outputs.append(.rtp(participant, packet))
                    continue
                }
                if let recorder {
                    let operations = recorder.mix(packet, now: now)
                    if !operations.isEmpty { outputs.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
                }
                datagramPool.recycle(packet)
            }
        }
        if let due = nextActivityReport, now >= due {
            nextActivityReport = due.nextOnGrid(period: Self.activityInterval, after: now)
            let receptions = audioReceptions()
            if let states = activity.report(receptions: { receptions[$0] }) { outputs.append(.audioMetadata(states)) }
        }
        if let due = nextReceiverReports, now >= due {
            nextReceiverReports = due.nextOnGrid(period: Self.receiverReportInterval, after: now)
            outputs += receiverReports(now: now)
        }
        if let due = video.nextDeadline, now >= due { outputs += video.tick(now: now) }
        if let recorder, let due = recorder.nextDeadline, now >= due {
            var requests: [MeetingRecorder.Request] = []
            let operations = recorder.tick(now: now, requests: &requests)
            if !operations.isEmpty { outputs.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
            outputs += keyFrames(requests, now: now)
        }
        return outputs
    }

    // MARK: Recording

    /// Starts recording the meeting for a media capture pipeline at `start` (finishing any recording running), knowing
    /// the attendees present (attendee id → ExternalUserId); the mix is recorded from its next frame, each camera
    /// from its next key frame (asked for as its packets come).
    func startRecording(_ setup: MeetingRecordingSetup, start: ClockReading, attendees: [String: String])
        -> [MeetingMediaOutput] {
        let outputs = stopRecording()
        let recorder = MeetingRecorder(setup: setup, start: start, attendees: attendees)
        self.recorder = recorder
        video.capturesUplinks = true
        addToMixer(recorder)
        return outputs
    }

    /// Ends the recording: what comes back finishes its files.
    func stopRecording() -> [MeetingMediaOutput] {
        guard let recorder else { return [] }
        self.recorder = nil
        video.capturesUplinks = false
        video.captured.removeAll()
        mixer?.removeParticipant(MeetingRecorder.mixerParticipant)
        return [.recording(pipelineId: recorder.setup.pipelineId, recorder.finish())]
    }

    /// Makes the recorder a listener of the mix (when it records audio and there is a mix): it never speaks, so it is
    /// given the shared encode of every speaker.
    private func addToMixer(_ recorder: MeetingRecorder) {
        guard recorder.setup.recordsAudio, let mixer else { return }
        mixer.addParticipant(MeetingRecorder.mixerParticipant, attendeeId: "recorder", outboundSSRC: 1, payloadType: 111)
    }

    /// Hands the router's captured uplink packets to the recorder.
    private func recordCaptured(now: NIODeadline, into outputs: inout [MeetingMediaOutput]) {
        // Taken out while read, so the router's list is not copied, and given back empty with its capacity.
        var captured = video.captured
        video.captured = []
        defer {
            captured.removeAll(keepingCapacity: true)
            video.captured = captured
        }
        guard let recorder else { return }
        var requests: [MeetingRecorder.Request] = []
        var operations: [RecordingFileOperation] = []
        for entry in captured {
            guard let attendeeId = sessions[entry.publisher]?.attendeeId else { continue }
            operations += recorder.video(entry.packet, from: entry.publisher, attendeeId: attendeeId, layer: entry.layer,
                                         best: entry.best, now: now, requests: &requests)
        }
        if !operations.isEmpty { outputs.append(.recording(pipelineId: recorder.setup.pipelineId, operations)) }
        outputs += keyFrames(requests, now: now)
    }

    private func keyFrames(_ requests: [MeetingRecorder.Request], now: NIODeadline) -> [MeetingMediaOutput] {
        requests.flatMap { request -> [MeetingMediaOutput] in
            switch request {
            case .keyFrame(let publisher, let layer): video.requestKeyFrame(from: publisher, layer: layer, now: now)
            }
        }
    }

    /// Each attendee's audio reception, from its connected session's statistics (of two sessions of one attendee, as
    /// in a reconnect's overlap, the one that received more).
    private func audioReceptions() -> [String: AudioActivityMeter.Reception] {
        var receptions: [String: AudioActivityMeter.Reception] = [:]
        for session in sessions.values where session.connected {
            guard let uplink = session.uplink else { continue }
            let reception = AudioActivityMeter.Reception(ssrc: uplink.ssrc, expected: uplink.statistics.packetsExpected,
                                                         received: uplink.statistics.packetsReceived)
            if let other = receptions[session.attendeeId], other.received >= reception.received { continue }
            receptions[session.attendeeId] = reception
        }
        return receptions
    }

    /// An RTCP receiver report for every connected session about its audio (RR with one block, and the SDES CNAME a
    /// compound packet needs): the client's `audioSendPacketLossPercent`, and its round trip through LSR/DLSR.
    private func receiverReports(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        for id in sessions.keys.sorted() {
            guard let session = sessions[id], session.connected, let ssrc = session.uplink?.ssrc,
                  let block = sessions[id]?.uplink?.statistics.reportBlock(ssrc: ssrc, now: now) else { continue }
            outputs.append(.rtcp(id, RTCPPacket.reportCompound(.receiverReport(ssrc: session.ssrc, reports: [block]),
                                                               ssrc: session.ssrc, cname: "carillon")))
        }
        return outputs
    }
}
