import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// The video of a client session as a synchronous state machine (sans-IO), on one media connection: the camera stream
/// it sends (``VideoSendStream``: encode, packetise, pace, answer PLI, FIR and NACK, follow the send-side estimate) and
/// the remote streams it receives (``VideoReceiveStreams``: assemble, decode what somebody looks at, NACK, PLI,
/// transport-wide feedback). This type configures both from the negotiation, routes RTCP, and once a second sends the
/// reports (the camera's sender reports and one receiver report, with the CNAME) and measures the second's metrics.
///
/// The shell feeds it frames, packets and the time and calls ``tick(now:)`` at ``nextDeadline``. Costs: those of its
/// two halves. Threading: not thread-safe; the session's event loop owns it.
final class SessionVideoCore {
    /// The streams of simulcast `layers` for a camera whose single stream would send on `videoSSRCs`
    /// (``SessionMediaPlan/layerSSRCs(_:)``).
    static func simulcastStreams(_ layers: [SimulcastLayerSetting],
                                 videoSSRCs: (media: UInt32, rtx: UInt32)) -> [VideoSimulcastStream] {
        zip(layers, SessionMediaPlan.layerSSRCs(videoSSRCs)).map {
            VideoSimulcastStream(setting: $0, ssrc: $1.media, rtxSSRC: $1.rtx)
        }
    }

    static let reportInterval = TimeAmount.seconds(1)
    /// The round trip assumed until one is measured.
    static let defaultRoundTrip = TimeAmount.milliseconds(100)

    /// The camera stream this session sends.
    let sending = VideoSendStream()
    /// The remote streams it receives.
    let receiving = VideoReceiveStreams()
    /// The SSRC this side's RTCP feedback and reports are sent from (the audio SSRC).
    private var reportSSRC: UInt32 = 0
    private var nextReport: NIODeadline?

    /// The round trip to the server, for repeating NACKs and the send metrics; the shell keeps it current from the
    /// audio's measurement.
    var roundTrip = SessionVideoCore.defaultRoundTrip

    init() {}

    /// Whether the camera stream is configured to be sent.
    var isSending: Bool { sending.isSending }

    /// The current target of the encoder, bit/s; nil while not sending.
    var sendTargetBitrate: Int? { sending.targetBitrate }

    /// Pictures encoded since sending started.
    var framesEncoded: Int { sending.statistics.framesEncoded }

    /// Media packets that left the pacer since sending started (``VideoSendStream/Statistics/packetsSent``).
    var packetsSent: Int { sending.statistics.packetsSent }

    /// Frames encoded per sent layer (one entry without simulcast; low, mid, hi with it).
    var layerFramesEncoded: [Int] { sending.layerFramesEncoded }

    /// The bitrate the split gave each sent layer for the latest picture, bit/s (0: not encoded).
    var layerBitrates: [Int] { sending.layerBitrates }

    /// Frames decoded per received video id.
    var framesDecoded: [Int: Int] {
        Dictionary(receiving.statistics.map { ($0.videoId, $0.framesDecoded) }, uniquingKeysWith: max)
    }

    /// What each received video got so far, by video id.
    var receiveStatistics: [RemoteVideoStatistics] {
        receiving.statistics.map {
            RemoteVideoStatistics(videoId: $0.videoId, attendeeId: $0.attendeeId, bytesReceived: $0.bytesReceived,
                                  framesReceived: $0.framesReceived, framesDecoded: $0.framesDecoded, width: $0.width,
                                  height: $0.height, packetsReceived: $0.packetsReceived)
        }
    }

    /// When ``tick(now:)`` is next due. Read after every packet, so it is folded without a list.
    var nextDeadline: NIODeadline? { nextReport.earlier(sending.nextDeadline).earlier(receiving.nextDeadline) }

    /// Whether `ssrc` is one of the received video streams (or their RTX).
    func receives(ssrc: UInt32) -> Bool { receiving.receives(ssrc: ssrc) }

    // MARK: Configuration

    /// Applies a (re)negotiation: what is sent (nil: nothing) and which tracks are received. Tracks that went away
    /// end their video; tracks kept (same SSRC) keep their state.
    func configure(send: VideoSendConfiguration?, receive tracks: [VideoReceiveTrack], reportSSRC: UInt32,
                   now: NIODeadline) -> [SessionMediaEffect] {
        self.reportSSRC = reportSSRC
        sending.configure(send)
        let effects = receiving.configure(tracks, reportSSRC: reportSSRC, now: now).map(SessionMediaEffect.init)
        if nextReport == nil, sending.isSending || !receiving.isEmpty { nextReport = now + Self.reportInterval }
        return effects
    }

    /// The server's list of streams stopped at their sender (INDEX `paused_at_source_ids`): each received stream
    /// newly in it is reported paused; one that left it resumes with its next frame.
    func setPausedAtSource(_ streamIds: Set<UInt32>) -> [SessionMediaEffect] {
        receiving.setPausedAtSource(streamIds).map(SessionMediaEffect.init)
    }

    /// Decodes remote video `videoId` (somebody looks at it) or stops decoding it (see
    /// ``VideoReceiveStreams/setDecoded(_:videoId:now:)``).
    func setDecoded(_ decoded: Bool, videoId: Int, now: NIODeadline) -> [SessionMediaEffect] {
        receiving.setDecoded(decoded, videoId: videoId, now: now).map(SessionMediaEffect.init)
    }

    /// The media connection ended: every received video ends.
    func stop(now: NIODeadline) -> [SessionMediaEffect] {
        configure(send: nil, receive: [], reportSSRC: reportSSRC, now: now)
    }

    // MARK: Media and feedback

    /// One local picture captured at `timestampNanoseconds` (see ``VideoSendStream/send(_:timestampNanoseconds:now:)``).
    func send(_ image: I420Image, timestampNanoseconds: Int64, now: NIODeadline) -> [SessionMediaEffect] {
        sending.send(image, timestampNanoseconds: timestampNanoseconds, now: now).map(SessionMediaEffect.init)
    }

    /// One frame that is already VP8 (see ``VideoSendStream/send(encoded:timestampNanoseconds:now:)``).
    func send(encoded frame: EncodedVideoFrame, timestampNanoseconds: Int64, now: NIODeadline) -> [SessionMediaEffect] {
        sending.send(encoded: frame, timestampNanoseconds: timestampNanoseconds, now: now).map(SessionMediaEffect.init)
    }

    /// A received RTP packet of one of the video tracks (after SRTP).
    func received(rtp packet: RTPPacket, now: NIODeadline) -> [SessionMediaEffect] {
        receiving.received(rtp: packet, now: now).map(SessionMediaEffect.init)
    }

    /// RTCP from the server: its sender reports about received streams, and feedback about the sent camera stream
    /// (PLI, FIR, NACK, transport-wide feedback, report blocks).
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) -> [SessionMediaEffect] {
        receiving.received(rtcp: packets, now: now)
        guard sending.isSending else { return [] }
        return sending.received(rtcp: packets, now: now).map(SessionMediaEffect.init)
    }

    // MARK: Timers

    /// Paced packets, NACKs and key-frame requests for the received streams, and once a second the reports.
    func tick(now: NIODeadline) -> [SessionMediaEffect] {
        var effects = sending.tick(now: now).map(SessionMediaEffect.init)
        effects += receiving.tick(now: now, roundTrip: roundTrip).map(SessionMediaEffect.init)
        if let due = nextReport, now >= due {
            nextReport = due.nextOnGrid(period: Self.reportInterval, after: now)
            let blocks = receiving.reportBlocks(now: now)
            effects += reports(blocks, now: now)
            effects.append(.videoStatistics(receiveStatistics))
            if sending.isSending || !receiving.isEmpty {
                let seconds = Double(Self.reportInterval.nanoseconds) / 1e9
                effects.append(.videoMetrics(VideoClientMetrics(
                    send: sending.measure(seconds: seconds, roundTrip: roundTrip),
                    receive: receiving.measure(blocks, seconds: seconds))))
            }
        }
        return effects
    }

    /// The camera's sender reports and a receiver report (`blocks`) about every received stream, in one compound.
    private func reports(_ blocks: [UInt32: RTCPPacket.ReportBlock], now: NIODeadline) -> [SessionMediaEffect] {
        guard let compound = sending.reportCompound(blocks: blocks, reportSSRC: reportSSRC, now: now) else { return [] }
        return [.sendRTCP(compound)]
    }
}
