import CarillonCodecs
import CarillonMedia
import CarillonProtocol
import CarillonRTC
import NIOCore

/// What the session media core asks its shell to do, in order.
enum SessionMediaEffect: Sendable, Equatable {
    /// Open the session's devices in `format`, closing any opened before: the chosen microphone when `microphone`,
    /// else a silent source; the chosen speaker when `speaker`, else the null sink.
    case openDevices(format: AudioFormat, microphone: Bool, speaker: Bool)
    /// Close the devices: the media connection ended.
    case closeDevices
    /// Send one RTP packet (before SRTP) on the media connection.
    case sendRTP([UInt8])
    /// Send one RTCP compound packet (before SRTCP) on the media connection.
    case sendRTCP([UInt8])
    /// Play 20 ms of received audio on the output.
    case play(AudioFrame)
    /// Show a decoded frame of remote video `videoId` (nil: that video ended).
    case remoteVideoFrame(I420Image?, timestampNanoseconds: Int64, videoId: Int, attendeeId: String)
    /// Remote video `videoId`, not decoded, delivers frames of this size: its first, a new size, or the first after a
    /// pause at the source (its tile appears, changes size or resumes; no picture to show).
    case remoteVideoArrived(width: Int, height: Int, timestampNanoseconds: Int64, videoId: Int, attendeeId: String)
    /// Remote video `videoId` stopped at its sender (the server said so): its tile shows a poor-connection pause
    /// until its next frame.
    case remoteVideoPausedAtSource(videoId: Int, attendeeId: String)
    /// The received videos' counters, once a second.
    case videoStatistics([RemoteVideoStatistics])
    /// The second's video metrics, for ``SessionMediaCore/videoMetricsMeasured(_:now:)`` (the video core measures,
    /// the audio side's once-a-second step reports).
    case videoMetrics(VideoClientMetrics)
    /// Hand the second's metrics to the metrics observers.
    case metrics([ObservableMetric: Double])
    /// Send this CLIENT_METRIC frame on signaling (``SignalingSessionCore/clientMetric(_:now:)``).
    case clientMetric(SdkClientMetricFrame)
    /// Tell the observers `connectionDidBecomePoor`.
    case connectionBecamePoor
    /// Tell the observers `connectionDidRecover`.
    case connectionRecovered
    /// The path is dead: reconnect (``SignalingSessionCore/mediaFailed(cause:now:)`` with
    /// `connectionHealthReconnect`). Always the last effect of its step.
    case reconnect
}

extension SessionMediaEffect {
    /// The effect of a video stream (``VideoSendStream``, ``VideoReceiveStreams``) as the session's.
    init(_ effect: VideoStreamEffect) {
        switch effect {
        case .sendRTP(let packet): self = .sendRTP(packet)
        case .sendRTCP(let packet): self = .sendRTCP(packet)
        case .remoteVideoFrame(let image, let timestamp, let videoId, let attendeeId):
            self = .remoteVideoFrame(image, timestampNanoseconds: timestamp, videoId: videoId, attendeeId: attendeeId)
        case .remoteVideoArrived(let width, let height, let timestamp, let videoId, let attendeeId):
            self = .remoteVideoArrived(width: width, height: height, timestampNanoseconds: timestamp, videoId: videoId,
                                       attendeeId: attendeeId)
        case .remoteVideoPausedAtSource(let videoId, let attendeeId):
            self = .remoteVideoPausedAtSource(videoId: videoId, attendeeId: attendeeId)
        }
    }
}

/// The media of a client session as a synchronous state machine (sans-IO): the 20 ms audio clock, the send and
/// receive pipelines, RTCP, the metrics and the connection-health verdicts.
///
/// Fed the media connection's packets, the captured frames and the time (``SessionTime``: monotonic for the clock,
/// wall clock for NTP timestamps), it returns ``SessionMediaEffect``s and says when it must be called next
/// (``nextDeadline``). It never reads a clock or touches a device or socket, so it runs in virtual time in tests.
///
/// * The clock: once connected, one frame every 20 ms on a fixed grid from the connection (the first frame is due at
///   once). The shell reads 20 ms from the input at ``nextDeadline`` and passes it to
///   ``frameTick(captured:now:)``, which sends its packet (nothing while muted) and returns the frame to play. A late
///   tick keeps the grid: the missed frames follow at once, one per call, so the session sends and plays 50 frames a
///   second however late its loop runs (``MediaFrameClock``). After a stall longer than the clock's catch-up bound
///   (500 ms) the missed frames are skipped and the sent timestamp jumps over them.
/// * Once a second, on the first tick at or after each second since the connection: an RTCP sender report (with a
///   report block about the received audio) and SDES CNAME, the metrics for ``MetricsObserver``s
///   (``ClientMetricsCollector``), CLIENT_METRIC (``AudioClientMetrics``), and the ``AudioConnectionHealth`` verdict
///   (poor, recovered, or reconnect).
/// * Received reports: a report block about the sent audio feeds the send-loss metric and CLIENT_METRIC, tells the
///   encoder how much loss to protect against with FEC, and gives the round trip (LSR/DLSR against the wall clock);
///   a sender report is echoed in the next report block.
/// * Voice Focus (``setVoiceFocus(_:)``): the send pipeline's RNNoise suppressor, kept on across media connections
///   until turned off; each connection makes its own suppressor state once, never per frame.
/// * Echo cancellation (``setEchoCancellation(_:)``): on real sound cards the played frames are the far-end reference
///   of the send pipeline's ``EchoCanceller``.
/// * Devices: which ones a connection uses follows ``AudioDeviceCapabilities`` (``Connection/capabilities``); a
///   device chosen mid-call (``devicesChanged()``) reopens them within the same capabilities.
///
/// The health verdicts (poor at most twice per session, its 60 s freeze) span the session, so one core serves every
/// media connection of a session. Threading: not thread-safe; the session's event loop owns it.
final class SessionMediaCore {
    /// What the media connection negotiated and the session chose, for ``connected(_:now:)``.
    struct Connection: Sendable, Equatable {
        /// The SSRC of the sent audio (the offer's).
        var ssrc: UInt32
        /// The CNAME of the sender reports: the attendee id.
        var cname: String
        /// The Opus payload type of the answer.
        var payloadType: UInt8
        /// The answer's id for the audio-level header extension; nil sends none.
        var audioLevelExtensionId: UInt8?
        /// The session's format: what devices capture and play, what the pipelines take and give.
        var audioMode: AudioMode
        /// Which devices the session uses, and whether received audio is decoded.
        var capabilities: AudioDeviceCapabilities
        /// The mute state when the connection came up (mute survives reconnects).
        var muted: Bool
        /// The first RTP sequence number; random as RFC 3550 asks, fixed by tests.
        var firstSequenceNumber: UInt16 = .random(in: .min ... .max)
        /// The first RTP timestamp; random as RFC 3550 asks, fixed by tests.
        var firstTimestamp: UInt32 = .random(in: .min ... .max)
    }

    static let frameMilliseconds = 20
    static let frameInterval: TimeAmount = .milliseconds(Int64(frameMilliseconds))

    /// The audio clock of a connection made at `start`: its first frame is due at once.
    private static func frameClock(startingAt start: NIODeadline) -> MediaFrameClock {
        var clock = MediaFrameClock(period: frameInterval)
        clock.start(at: start)
        return clock
    }
    /// How long the video core's metrics stay reportable: a little over its one-second cadence.
    static let videoMetricsLifetime: TimeAmount = .milliseconds(1_500)

    /// The audio of the current media connection.
    private struct Audio {
        let connection: Connection
        let send: AudioSendPipeline
        let receive: AudioReceivePipeline
        /// Voice Focus's suppressor for this connection, made when first turned on and kept while it is off.
        var suppressor: NoiseSuppressor?
        /// The 20 ms grid from the connection: late ticks catch up, a long stall is skipped.
        var clock: MediaFrameClock
        /// The once-a-second metrics, on a grid from the connection.
        var metrics: ClientMetricsCollector
        /// The server's latest report block about the sent audio, and the round trip it measured.
        var sendReport: RTCPPacket.ReportBlock?
        var roundTrip: TimeAmount?
        var packetsSentBefore = 0
    }

    private var audio: Audio?
    /// Voice Focus: the library while the app wants it on, kept across media connections (Chime keeps it until the
    /// audio session stops); nil when off.
    private var voiceFocusLibrary: RNNoiseLibrary?
    /// The video core's newest metrics and when they came.
    private var latestVideoMetrics: (VideoClientMetrics, NIODeadline)?
    /// Kept across connections; ``AudioConnectionHealth/connected(at:)`` sets the real start before any sample.
    private var health = AudioConnectionHealth(connectedAt: .uptimeNanoseconds(0))

    init() {}

    /// When the next frame is due; nil without a media connection.
    var nextDeadline: NIODeadline? { audio?.clock.nextFrame }

    /// Whether a media connection's audio is running.
    var isConnected: Bool { audio != nil }

    /// Whether Voice Focus is on (it applies to the current media connection and to later ones).
    var isVoiceFocusEnabled: Bool { voiceFocusLibrary != nil }

    /// Whether the current media connection cancels echo (``setEchoCancellation(_:)``).
    var isCancellingEcho: Bool { audio?.send.echoCanceller != nil }

    /// Whether nothing is sent.
    var isMuted: Bool { audio?.send.isMuted ?? false }

    /// The send pipeline's counters, nil without a media connection.
    var sendStatistics: AudioSendPipeline.Statistics? { audio?.send.statistics }

    /// The receive pipeline's counters, nil without a media connection.
    var receiveStatistics: AudioReceivePipeline.Statistics? { audio?.receive.statistics }

    /// The loss the encoder protects against with FEC, from the server's latest report, in %.
    var expectedPacketLossPercent: Int? { audio?.send.expectedPacketLossPercent }

    /// The round trip measured from the server's latest report that allowed it.
    var roundTrip: TimeAmount? { audio?.roundTrip }

    /// Whether the connection is reported poor now.
    var isConnectionPoor: Bool { health.isPoor }

    // MARK: Inputs

    /// The media connection is up (ICE and DTLS done): starts the clock (first frame due at `now`) and asks for the
    /// devices. Throws when Opus cannot be set up, leaving the core as it was.
    func connected(_ connection: Connection, now: SessionTime) throws(OpusError) -> [SessionMediaEffect] {
        let send = try AudioSendPipeline(
            audioMode: connection.audioMode, ssrc: connection.ssrc, payloadType: connection.payloadType,
            audioLevelExtensionID: connection.audioLevelExtensionId,
            sequenceNumber: connection.firstSequenceNumber, timestamp: connection.firstTimestamp)
        send.setMuted(connection.muted)
        // A suppressor that cannot be made (no memory) leaves the audio as it is rather than stopping the call.
        let suppressor = voiceFocusLibrary.flatMap { try? NoiseSuppressor(library: $0, format: send.suppressorFormat) }
        send.setNoiseSuppressor(suppressor)
        let receive = try AudioReceivePipeline(audioMode: connection.audioMode, payloadType: connection.payloadType)
        // Without an output nothing is heard, so nothing is decoded (a listening bot costs almost nothing).
        receive.decodes = connection.capabilities != .none
        audio = Audio(connection: connection, send: send, receive: receive, suppressor: suppressor,
                      clock: Self.frameClock(startingAt: now.monotonic), metrics: ClientMetricsCollector(start: now.monotonic))
        health.connected(at: now.monotonic)
        return [Self.openDevices(for: connection)]
    }

    /// An RTP packet of the received audio (after SRTP), arrived at `now`.
    func received(rtp packet: RTPPacket, now: SessionTime) {
        audio?.receive.receive(packet, arrival: now.monotonic)
    }

    /// RTCP packets (after SRTCP) arrived at `now`: reports about the sent audio, and the server's sender reports
    /// about what it sends (echoed in the next report block).
    func received(rtcp packets: [RTCPPacket], now: SessionTime) {
        guard var audio else { return }
        for packet in packets {
            let blocks: [RTCPPacket.ReportBlock]
            switch packet {
            case .senderReport(let ssrc, let ntp, _, _, _, let reports):
                audio.receive.senderReportReceived(ssrc: ssrc, ntpTimestamp: NTPTimestamp(ntp), arrival: now.monotonic)
                blocks = reports
            case .receiverReport(_, let reports):
                blocks = reports
            default:
                continue
            }
            for block in blocks where block.ssrc == audio.connection.ssrc {
                audio.sendReport = block
                audio.metrics.addAudioSendReport(block, at: now.monotonic)
                audio.send.setExpectedPacketLossPercent(Int(block.fractionLost) * 100 / 256)
                if let roundTrip = block.roundTripTime(arrival: now.ntp) {
                    audio.roundTrip = roundTrip
                }
            }
        }
        self.audio = audio
    }

    /// The frame due at ``nextDeadline``: `captured` is 20 ms read from the input (nil: none open, sent as
    /// silence). Returns the packet to send, the frame to play and, once a second, the reports. A tick before the
    /// deadline (or without a connection) does nothing and drops `captured`.
    func frameTick(captured: AudioFrame?, now: SessionTime) -> [SessionMediaEffect] {
        frameTick(now: now) { send, format in
            send.process(captured ?? .silence(format: format, milliseconds: Self.frameMilliseconds))
        }
    }

    /// The frame due at ``nextDeadline`` from an input that delivers Opus (``EncodedAudioInputSource``): as
    /// ``frameTick(captured:now:)``, with `encoded` sent as it is instead of encoding a captured frame.
    func frameTick(encoded: EncodedAudioFrame, now: SessionTime) -> [SessionMediaEffect] {
        frameTick(now: now) { send, _ in send.process(encoded: encoded) }
    }

    /// One frame: `packet` makes what is sent from the send pipeline and the session's format.
    private func frameTick(now: SessionTime, packet: (AudioSendPipeline, AudioFormat) -> RTPPacket?) -> [SessionMediaEffect] {
        guard var audio, let skipped = audio.clock.takeFrame(now: now.monotonic) else { return [] }
        if skipped > 0 { audio.send.skip(milliseconds: skipped * Self.frameMilliseconds) }
        var effects: [SessionMediaEffect] = []
        if let packet = packet(audio.send, audio.connection.audioMode.format) {
            effects.append(.sendRTP(packet.serialized()))
        }
        let played = audio.receive.nextFrame(now: now.monotonic)
        audio.send.played(played)
        effects.append(.play(played))
        if now.monotonic >= audio.metrics.nextDeadline {
            effects += secondElapsed(&audio, now: now)
        }
        self.audio = audio
        return effects
    }

    /// The video core's newest metrics: merged into the next second's observer metrics and CLIENT_METRIC while
    /// fresh (at most ``videoMetricsLifetime`` old, so a video that stopped stops being reported).
    func videoMetricsMeasured(_ metrics: VideoClientMetrics, now: NIODeadline) {
        latestVideoMetrics = (metrics, now)
    }

    /// Whether received audio is decoded: the shell turns it off when the output it opened discards what it is
    /// given (a null output), so a bot that hears nothing decodes nothing; ``connected(_:now:)`` sets it from the
    /// capabilities first.
    func setDecoding(_ decodes: Bool) {
        guard let audio, audio.connection.capabilities != .none else { return }
        audio.receive.decodes = decodes
    }

    /// Whether received audio is decoded now.
    var isDecoding: Bool { audio?.receive.decodes ?? false }

    /// Mutes or unmutes the sent audio (the server is told through AUDIO_CONTROL by signaling).
    func setMuted(_ muted: Bool) {
        audio?.send.setMuted(muted)
    }

    /// Turns Voice Focus on with `library` or off with nil, from the next frame. The suppressor's state is made here,
    /// once per media connection, never per frame; turning it on during a connection keeps the state it had, so a
    /// quick off-and-on does not make it learn the noise again.
    func setVoiceFocus(_ library: RNNoiseLibrary?) throws(NoiseSuppressorError) {
        guard var audio else {
            voiceFocusLibrary = library
            return
        }
        if let library, audio.suppressor == nil {
            audio.suppressor = try NoiseSuppressor(library: library, format: audio.send.suppressorFormat)
        }
        audio.send.setNoiseSuppressor(library == nil ? nil : audio.suppressor)
        voiceFocusLibrary = library
        self.audio = audio
    }

    /// Turns echo cancellation (with gain control and the high-pass filter) on or off for the current media
    /// connection; the shell decides after opening the devices (on for real sound cards, off for virtual devices).
    /// Throws when the library refuses its settings, leaving it off.
    func setEchoCancellation(_ enabled: Bool) throws(EchoCanceller.Failure) {
        guard let audio else { return }
        guard enabled else {
            audio.send.setEchoCanceller(nil)
            return
        }
        guard audio.send.echoCanceller == nil else { return }
        audio.send.setEchoCanceller(try EchoCanceller(format: audio.send.captureFormat))
    }

    /// The app chose another device, or the active one changed: reopen the devices the capabilities allow (nothing
    /// for a session that uses none).
    func devicesChanged() -> [SessionMediaEffect] {
        guard let audio, audio.connection.capabilities != .none else { return [] }
        return [Self.openDevices(for: audio.connection)]
    }

    /// The media connection ended: the clock stops and the devices close.
    func stop() -> [SessionMediaEffect] {
        guard audio != nil else { return [] }
        audio = nil
        return [.closeDevices]
    }

    // MARK: Once a second

    /// The sender report, the metrics, CLIENT_METRIC and the connection-health verdict.
    private func secondElapsed(_ audio: inout Audio, now: SessionTime) -> [SessionMediaEffect] {
        var effects: [SessionMediaEffect] = []
        let interval = audio.receive.takeLossInterval()
        audio.metrics.addAudioReceiveCounts(expected: interval.expected, lost: interval.lost)
        let connection = audio.connection
        let report = RTCPPacket.senderReport(
            ssrc: connection.ssrc, ntpTimestamp: now.ntp.value, rtpTimestamp: audio.send.nextTimestamp,
            packetCount: UInt32(truncatingIfNeeded: audio.send.statistics.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: audio.send.statistics.payloadBytesSent),
            reports: audio.receive.reportBlock(now: now.monotonic).map { [$0] } ?? [])
        effects.append(.sendRTCP(RTCPPacket.reportCompound(report, ssrc: connection.ssrc, cname: connection.cname)))
        var video: VideoClientMetrics?
        if let (metrics, at) = latestVideoMetrics, now.monotonic - at < Self.videoMetricsLifetime { video = metrics }
        audio.metrics.setVideoMetrics(video?.observable ?? [:])
        if let metrics = audio.metrics.advance(to: now.monotonic) { effects.append(.metrics(metrics)) }
        let clockRate = Double(AudioSendPipeline.clockRate)
        let measured = AudioClientMetrics(
            micPacketsPerSecond: Double(audio.send.statistics.packetsSent - audio.packetsSentBefore),
            micLossPercent: audio.sendReport.map { Double($0.fractionLost) * 100 / 256 },
            micJitterMilliseconds: audio.sendReport.map { Double($0.jitter) * 1000 / clockRate },
            micRoundTripMilliseconds: audio.roundTrip.map { Double($0.nanoseconds) / 1e6 },
            speakerPacketsPerSecond: Double(interval.received),
            speakerLossPercent: interval.expected > 0 ? interval.lossPercent : nil,
            speakerJitterMilliseconds: audio.receive.receiveStatistics.map { $0.jitterSeconds * 1000 },
            jitterBufferMilliseconds: Double(audio.receive.targetDelay.nanoseconds) / 1e6)
        audio.packetsSentBefore = audio.send.statistics.packetsSent
        var frame = measured.frame
        frame.streamMetricFrames += video?.streamFrames ?? []
        effects.append(.clientMetric(frame))
        switch health.record(packetsReceived: interval.received, now: now.monotonic) {
        case .becamePoor: effects.append(.connectionBecamePoor)
        case .recovered: effects.append(.connectionRecovered)
        case .reconnect: effects.append(.reconnect)
        case nil: break
        }
        return effects
    }

    /// The devices a connection uses: a microphone only with input capability (else silence, which DTX keeps to a few
    /// bytes, as Chime sends "muted" packets), a speaker unless the session has no audio devices at all.
    private static func openDevices(for connection: Connection) -> SessionMediaEffect {
        .openDevices(format: connection.audioMode.format,
                     microphone: connection.capabilities == .inputAndOutput,
                     speaker: connection.capabilities != .none)
    }
}
