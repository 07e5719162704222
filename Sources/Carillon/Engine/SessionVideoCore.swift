import CarillonCodecs
import CarillonRTC
import NIOCore

/// The video of a client session as a synchronous state machine (sans-IO): the camera stream it sends and the
/// remote streams it receives on one media connection.
///
/// * Sending: each local picture is encoded with VP8 (the bitrate follows the send-side estimate from the server's
///   transport-wide feedback, capped by the app's maximum), packetised (RFC 7741), kept for retransmission and paced
///   (``Pacer`` at 2.5× the target), with a transport-wide sequence number written as each packet leaves. PLI and
///   FIR ask for a key frame; NACKs are answered over RTX; a sender report goes out each second.
/// * The server's REMB caps the target: it says what the slowest receiver of the stream can take.
/// * Receiving: transport-wide feedback about every video packet when negotiated (the server's downlink estimate);
///   per receive m-line (``ReceiveTrack``), RTX unwrapped, reception statistics, NACKs for gaps,
///   ``VP8FrameAssembler`` frames in order; PLI when the assembler waits too long or the decoder needs a key frame;
///   receiver reports each second. A track that goes away ends its video (a nil frame).
/// * Decoding costs about 1 ms per 360p frame, so only videos somebody looks at are decoded: those marked with
///   ``setDecoded(_:videoId:now:)`` (the tile controller marks a tile's video while a view is bound to it). Their
///   frames are decoded and handed out as ``SessionMediaEffect/remoteVideoFrame``. Any other video is assembled and
///   counted but not decoded; ``SessionMediaEffect/remoteVideoArrived`` announces it (its first frame, a key frame of
///   a new size, the first frame after a pause at the source) so its tile exists and can be bound. Marking a video
///   that already delivered frames asks for a key frame at once; decoding starts at the next key frame.
///
/// The shell feeds it frames, packets and the time and calls ``tick(now:)`` at ``nextDeadline``. Costs per sent
/// frame: one encode (about 1–4 ms at 320×180–640×360) and one array per packet; per received frame one decode and
/// one picture. Threading: not thread-safe; the session's event loop owns it.
final class SessionVideoCore {
    /// How the camera stream is sent, from the answer.
    struct SendConfiguration: Sendable, Equatable {
        var ssrc: UInt32
        var rtxSSRC: UInt32
        var payloadType: UInt8
        var rtxPayloadType: UInt8?
        var transportCCExtensionId: UInt8?
        var cname: String
        /// The stream id the server allocated to the camera (for CLIENT_METRIC), 0 when unknown.
        var streamId: UInt32 = 0
        /// The app's cap in bit/s (0: ``defaultMaximumBitrate``, with simulcast ``defaultSimulcastMaximumBitrate``).
        var maximumBitrate: Int
        var screenContent: Bool
        /// Simulcast: one entry per layer, lowest first (their settings from ``SimulcastUplinkPolicy``); empty for
        /// one stream on ``ssrc``.
        var simulcast: [SimulcastStream] = []
        /// The `rtp-stream-id` extension's id: written on every media packet of a simulcast layer.
        var ridExtensionId: UInt8? = nil
        /// The `repaired-rtp-stream-id` extension's id: written on every RTX packet of a simulcast layer.
        var repairedRidExtensionId: UInt8? = nil
    }

    /// One simulcast layer to send: its setting (rid, scale, cap; off at 0 kbps) and its SSRCs.
    struct SimulcastStream: Sendable, Equatable {
        var setting: SimulcastLayerSetting
        var ssrc: UInt32
        var rtxSSRC: UInt32
    }

    /// The streams of simulcast `layers` for a camera whose single stream would send on `videoSSRCs`
    /// (``SessionMediaPlan/layerSSRCs(_:)``).
    static func simulcastStreams(_ layers: [SimulcastLayerSetting],
                                 videoSSRCs: (media: UInt32, rtx: UInt32)) -> [SimulcastStream] {
        zip(layers, SessionMediaPlan.layerSSRCs(videoSSRCs)).map {
            SimulcastStream(setting: $0, ssrc: $1.media, rtxSSRC: $1.rtx)
        }
    }

    /// One receive m-line and what it carries.
    struct ReceiveTrack: Sendable, Equatable {
        var mid: String
        var streamId: UInt32
        /// The source (INDEX `group_id`) the stream is a layer of; 0 when unknown.
        var groupId: UInt32 = 0
        var attendeeId: String
        var ssrc: UInt32
        var rtxSSRC: UInt32?
        var payloadType: UInt8
        var rtxPayloadType: UInt8?
        /// The transport-wide sequence number extension's id, when negotiated (feedback is sent about it).
        var transportCCExtensionId: UInt8? = nil
        /// The tile id: the source's group id, unique in the meeting, new for each publication and the same for all
        /// its layers, so a layer switch, a change of the sender's layers or a new SSRC keeps the tile (the stream
        /// id when the group is unknown).
        var videoId: Int { Int(groupId != 0 ? groupId : streamId) }
    }

    static let defaultMaximumBitrate = 1_400_000
    /// The estimator's ceiling with simulcast when the app sets no cap: the largest sum of layer caps (FHD low + hi).
    static let defaultSimulcastMaximumBitrate = 2_500_000
    static let startBitrate = 600_000
    static let minimumBitrate = 60_000
    /// Least time between two probes of the simulcast uplink (see ``probeStarvedLayers(_:split:now:)``).
    static let probeInterval = TimeAmount.seconds(3)
    /// How long a probe's window lasts, and how often its padding is topped up.
    static let probeDuration = TimeAmount.milliseconds(50)
    static let probePaddingInterval = TimeAmount.milliseconds(2)
    /// Padding octets per probe packet (the RTP maximum).
    static let probePaddingOctets: UInt8 = 255
    /// Pictures faster than this are dropped before encoding.
    static let maximumFrameRate = 30
    /// Screen content faster than this is dropped before encoding (Chime's browser client caps content at 15 fps).
    static let maximumContentFrameRate = 15
    static let reportInterval = TimeAmount.seconds(1)
    static let feedbackInterval = TimeAmount.milliseconds(10)
    /// The least time between two key-frame requests for a decoder that needs one.
    static let decoderKeyFrameInterval = TimeAmount.milliseconds(500)
    /// The round trip assumed until one is measured.
    static let defaultRoundTrip = TimeAmount.milliseconds(100)

    /// One encoded stream of the camera (the only one without simulcast, else one per layer); a class so the
    /// per-packet paths mutate it in place (its history is large).
    private final class SendLayer {
        var stream: SimulcastStream
        var encoder: VP8Encoder?
        var packetizer = VP8Packetizer()
        var sequenceNumber = UInt16.random(in: .min ... .max)
        var history = RTPSendHistory(capacity: 2_048)
        var rtx: RTXStream?
        /// The first frame, and any after a PLI or FIR on this layer's SSRC, is a key frame.
        var keyFrameRequested = true
        var encoderBitrate = 0
        /// The bitrate the split gave this layer for the latest picture (bit/s, 0: not encoded).
        var allocated = 0
        var lastTimestamp: UInt32?
        var packetsSent: UInt32 = 0
        var octetsSent: UInt32 = 0
        var framesEncoded = 0
        var width = 0
        var height = 0
        /// The server's newest report block about this layer.
        var lastReport: RTCPPacket.ReportBlock?

        init(stream: SimulcastStream) { self.stream = stream }
    }

    /// The sending state; a class so the per-packet and per-frame paths mutate it in place (a struct taken out of
    /// its optional would copy the history, pacer and estimator buffers on every write).
    private final class Sender {
        var configuration: SendConfiguration
        /// One layer without simulcast; with it, low, mid, hi.
        var layers: [SendLayer]
        var firstCapture: Int64?
        var firstTimestamp = UInt32.random(in: .min ... .max)
        var lastTimestamp: UInt32?
        var lastEncodedCapture: Int64?
        var estimator: SendSideBandwidthEstimator
        /// The server's REMB for the stream: what its slowest receiver can take (used while one layer is sent).
        var remoteEstimate: Int?
        var pacer = Pacer(targetBitrate: SessionVideoCore.startBitrate)
        var transportSequenceNumber: UInt16 = 0
        /// The earliest the uplink may probe again, and when an open probe's padding is next topped up.
        var nextProbeAt: NIODeadline?
        var nextProbePadding: NIODeadline?
        var framesEncoded = 0
        var framesCaptured = 0
        var nacksReceived = 0
        var plisReceived = 0
        var firsReceived = 0
        /// The counters at the previous metrics report.
        var reported = SendCounters()

        init(configuration: SendConfiguration, estimator: SendSideBandwidthEstimator) {
            self.configuration = configuration
            self.estimator = estimator
            layers = Sender.streams(of: configuration).map(SendLayer.init)
        }

        /// The streams a configuration sends: its simulcast layers, or one unscaled stream on its SSRC.
        static func streams(of configuration: SendConfiguration) -> [SimulcastStream] {
            guard configuration.simulcast.isEmpty else { return configuration.simulcast }
            let cap = configuration.maximumBitrate > 0 ? configuration.maximumBitrate : SessionVideoCore.defaultMaximumBitrate
            return [SimulcastStream(setting: SimulcastLayerSetting(rid: "", scaleDown: 1, maxBitrateKbps: UInt32(cap / 1_000)),
                                    ssrc: configuration.ssrc, rtxSSRC: configuration.rtxSSRC)]
        }

        var isSimulcast: Bool { !configuration.simulcast.isEmpty }

        /// Takes a new configuration with the same SSRCs: the layers' settings change in place.
        func update(_ configuration: SendConfiguration) {
            self.configuration = configuration
            for (layer, stream) in zip(layers, Sender.streams(of: configuration)) {
                if !layer.stream.setting.isActive, stream.setting.isActive { layer.keyFrameRequested = true }
                layer.stream = stream
            }
        }

        /// The layer sending on `ssrc` (media or RTX).
        func layer(ssrc: UInt32) -> SendLayer? {
            layers.first { $0.stream.ssrc == ssrc || $0.stream.rtxSSRC == ssrc }
        }

        /// Whether exactly one layer is configured to be sent (the server's REMB then applies to it).
        var sendsOneLayer: Bool { layers.count { $0.stream.setting.isActive } == 1 }

        /// The most the camera may use whatever the estimate, bit/s: the app's cap (with simulcast, also the sum of
        /// the active layers' caps).
        var capBitrate: Int {
            let cap = configuration.maximumBitrate > 0 ? configuration.maximumBitrate : SessionVideoCore.defaultMaximumBitrate
            guard isSimulcast else { return cap }
            let layersCap = layers.reduce(0) { $0 + Int($1.stream.setting.maxBitrateKbps) * 1_000 }
            return configuration.maximumBitrate > 0 ? min(configuration.maximumBitrate, layersCap) : layersCap
        }

        /// The total the camera may use now, bit/s: the estimate, within ``capBitrate`` and, with one layer sent, the
        /// server's REMB.
        var targetBitrate: Int {
            let remote = sendsOneLayer ? remoteEstimate ?? .max : .max
            return max(SessionVideoCore.minimumBitrate, min(capBitrate, estimator.targetBitrate, remote))
        }
    }

    /// The sender's counters at a metrics report, to measure the next second against.
    private struct SendCounters {
        var packets: UInt32 = 0
        var octets: UInt32 = 0
        var framesEncoded = 0
        var framesCaptured = 0
        var nacks = 0
        var plis = 0
        var firs = 0
    }

    /// A receiver's counters at a metrics report.
    private struct ReceiveCounters {
        var bytes = 0
        var packets = 0
        var framesDecoded = 0
        var nacks = 0
        var plis = 0
        var block: RTCPPacket.ReportBlock?
    }

    /// One received stream's state; a class for the same reason as ``Sender`` (the assembler's buffer is per packet).
    private final class Receiver {
        var track: ReceiveTrack
        /// A stall of 200 ms (two or three NACK rounds) asks for a key frame.
        var assembler = VP8FrameAssembler(configuration: .init(keyFrameRequestDelay: .milliseconds(200)))
        var decoder: VP8Decoder?
        var nack = NackGenerator()
        var statistics = RTPReceiveStatistics(clockRate: 90_000)
        var needsKeyFrame = false
        var lastKeyFrameRequest: NIODeadline?
        var framesDecoded = 0
        /// Complete frames assembled, decoded or not.
        var framesReceived = 0
        /// Whether frames are decoded (somebody looks at the video); see ``SessionVideoCore/setDecoded(_:videoId:now:)``.
        var decoding = false
        /// Frames are skipped until a key frame: decoding started after the stream did.
        var awaitingKeyFrame = false
        /// An undecoded video announces its next frame (its first, or the first after a pause at the source).
        var announcePending = true
        var bytesReceived = 0
        var packetsReceived = 0
        var nacksSent = 0
        var plisSent = 0
        var lastSize: (width: Int, height: Int) = (0, 0)
        var reported = ReceiveCounters()

        init(track: ReceiveTrack) { self.track = track }

        /// Takes over the counters and the size of `previous`, the same video on another SSRC, so its statistics
        /// and its tile continue (the stream state starts anew: the new downlink begins with a key frame).
        func continuing(_ previous: Receiver) {
            framesDecoded = previous.framesDecoded
            framesReceived = previous.framesReceived
            bytesReceived = previous.bytesReceived
            packetsReceived = previous.packetsReceived
            nacksSent = previous.nacksSent
            plisSent = previous.plisSent
            lastSize = previous.lastSize
            reported = previous.reported
            announcePending = false
        }
    }

    private var sender: Sender?
    /// The next RTP sequence number of each SSRC this session has sent video from (camera and RTX), and the next
    /// transport-wide one, kept when the camera stops. A camera started again on the same transport sends from the
    /// same SSRCs, and the server's SRTP replay window (RFC 3711 §3.3.2) drops every packet numbered behind what it
    /// has already seen: a fresh random start would lose the restarted camera whenever it fell behind.
    private var continuedSequenceNumbers: [UInt32: UInt16] = [:]
    private var continuedTransportSequenceNumber: UInt16 = 0
    private var receivers: [UInt32: Receiver] = [:]
    private var rtxToMedia: [UInt32: UInt32] = [:]
    /// Transport-wide feedback about received video, when a receive m-line negotiated it.
    private var transportFeedback: TransportFeedbackGenerator?
    private var transportFeedbackExtensionId: UInt8?
    /// Stream ids the server reports stopped at their sender.
    private var pausedAtSource: Set<UInt32> = []
    /// The videos whose frames are decoded (``setDecoded(_:videoId:now:)``), kept across renegotiations.
    private var decodedVideoIds: Set<Int> = []
    /// The SSRC this side's RTCP feedback is sent from (the audio SSRC).
    private var reportSSRC: UInt32 = 0
    private var nextReport: NIODeadline?
    private var nextFeedback: NIODeadline?

    /// The round trip to the server, for repeating NACKs; the shell keeps it current from the audio's measurement.
    var roundTrip = SessionVideoCore.defaultRoundTrip

    init() {}

    /// Whether the camera stream is configured to be sent.
    var isSending: Bool { sender != nil }

    /// The current target of the encoder, bit/s; nil while not sending.
    var sendTargetBitrate: Int? { sender?.targetBitrate }

    /// Pictures encoded since sending started.
    var framesEncoded: Int { sender?.framesEncoded ?? 0 }

    /// Frames encoded per sent layer (one entry without simulcast; low, mid, hi with it).
    var layerFramesEncoded: [Int] { sender?.layers.map(\.framesEncoded) ?? [] }

    /// The bitrate the split gave each sent layer for the latest picture, bit/s (0: not encoded).
    var layerBitrates: [Int] { sender?.layers.map(\.allocated) ?? [] }

    /// Frames decoded per received video id.
    var framesDecoded: [Int: Int] { Dictionary(uniqueKeysWithValues: receivers.values.map { ($0.track.videoId, $0.framesDecoded) }) }

    /// The frame assembly counters per received video id (skipped frames, key-frame requests).
    var assemblyStatistics: [Int: VP8FrameAssembler.Statistics] {
        Dictionary(uniqueKeysWithValues: receivers.values.map { ($0.track.videoId, $0.assembler.statistics) })
    }

    /// What each received video got so far, by video id.
    var receiveStatistics: [RemoteVideoStatistics] {
        receivers.values.map {
            RemoteVideoStatistics(videoId: $0.track.videoId, attendeeId: $0.track.attendeeId,
                                  bytesReceived: $0.bytesReceived, framesReceived: $0.framesReceived,
                                  framesDecoded: $0.framesDecoded, width: $0.lastSize.width, height: $0.lastSize.height)
        }.sorted { $0.videoId < $1.videoId }
    }

    /// When ``tick(now:)`` is next due. Read after every packet, so it is folded without a list.
    var nextDeadline: NIODeadline? {
        var earliest = nextReport.earlier(nextFeedback).earlier(sender?.pacer.nextDeadline).earlier(sender?.nextProbePadding)
            .earlier(transportFeedback?.nextDeadline)
        for receiver in receivers.values { earliest = earliest.earlier(receiver.assembler.nextDeadline) }
        return earliest
    }

    /// Whether `ssrc` is one of the received video streams (or their RTX).
    func receives(ssrc: UInt32) -> Bool { receivers[ssrc] != nil || rtxToMedia[ssrc] != nil }

    // MARK: Configuration

    /// Applies a (re)negotiation: what is sent (nil: nothing) and which tracks are received. Tracks that went away
    /// end their video; tracks kept (same SSRC) keep their state.
    func configure(send: SendConfiguration?, receive tracks: [ReceiveTrack], reportSSRC: UInt32,
                   now: NIODeadline) -> [SessionMediaEffect] {
        self.reportSSRC = reportSSRC
        if let send {
            let ssrcs = Sender.streams(of: send).map(\.ssrc)
            if let sender, sender.layers.map(\.stream.ssrc) == ssrcs {
                sender.update(send)
            } else {
                retireSender()
                let ceiling = send.maximumBitrate > 0 ? send.maximumBitrate
                    : send.simulcast.isEmpty ? Self.defaultMaximumBitrate : Self.defaultSimulcastMaximumBitrate
                let estimator = SendSideBandwidthEstimator(configuration: .init(
                    minimumBitrate: Self.minimumBitrate, startBitrate: Self.startBitrate, maximumBitrate: ceiling))
                let created = Sender(configuration: send, estimator: estimator)
                for layer in created.layers {
                    if let next = continuedSequenceNumbers[layer.stream.ssrc] { layer.sequenceNumber = next }
                }
                created.transportSequenceNumber = continuedTransportSequenceNumber
                sender = created
            }
            for layer in sender?.layers ?? [] {
                if let rtxType = send.rtxPayloadType {
                    if layer.rtx?.ssrc != layer.stream.rtxSSRC {
                        if let old = layer.rtx { continuedSequenceNumbers[old.ssrc] = old.nextSequenceNumber }
                        layer.rtx = RTXStream(ssrc: layer.stream.rtxSSRC, payloadTypes: [send.payloadType: rtxType],
                                              firstSequenceNumber: continuedSequenceNumbers[layer.stream.rtxSSRC]
                                                  ?? .random(in: 0...UInt16.max))
                    }
                } else {
                    if let old = layer.rtx { continuedSequenceNumbers[old.ssrc] = old.nextSequenceNumber }
                    layer.rtx = nil
                }
            }
        } else {
            retireSender()
        }
        var effects: [SessionMediaEffect] = []
        let wanted = Dictionary(tracks.map { ($0.ssrc, $0) }, uniquingKeysWith: { first, _ in first })
        let wantedVideos = Set(tracks.map(\.videoId))
        // A track of the same video on the same SSRC keeps its receiver (another layer of the source); one that moved
        // to another SSRC continues there; only a video no track carries any more ends.
        var moved: [Int: Receiver] = [:]
        for (ssrc, receiver) in receivers where wanted[ssrc]?.videoId != receiver.track.videoId {
            receivers[ssrc] = nil
            if wantedVideos.contains(receiver.track.videoId) {
                moved[receiver.track.videoId] = receiver
            } else {
                effects.append(.remoteVideoFrame(nil, timestampNanoseconds: now.uptimeNanoseconds.toInt64,
                                                 videoId: receiver.track.videoId, attendeeId: receiver.track.attendeeId))
            }
        }
        for track in tracks {
            if receivers[track.ssrc] == nil {
                let receiver = Receiver(track: track)
                if let previous = moved.removeValue(forKey: track.videoId) { receiver.continuing(previous) }
                receiver.decoding = decodedVideoIds.contains(track.videoId)
                receivers[track.ssrc] = receiver
                if pausedAtSource.contains(track.streamId) {
                    effects.append(.remoteVideoPausedAtSource(videoId: track.videoId, attendeeId: track.attendeeId))
                }
            }
            receivers[track.ssrc]?.track = track
        }
        rtxToMedia = [:]
        for track in tracks { if let rtx = track.rtxSSRC { rtxToMedia[rtx] = track.ssrc } }
        let feedbackTrack = tracks.first { $0.transportCCExtensionId != nil }
        if let feedbackTrack {
            if transportFeedbackExtensionId != feedbackTrack.transportCCExtensionId || transportFeedback == nil {
                transportFeedback = TransportFeedbackGenerator(senderSSRC: reportSSRC, mediaSSRC: feedbackTrack.ssrc)
            }
            transportFeedbackExtensionId = feedbackTrack.transportCCExtensionId
        } else {
            transportFeedback = nil
            transportFeedbackExtensionId = nil
        }
        if nextReport == nil, sender != nil || !receivers.isEmpty { nextReport = now + Self.reportInterval }
        return effects
    }

    /// The server's list of streams stopped at their sender (INDEX `paused_at_source_ids`): each received stream
    /// newly in it is reported paused; one that left it resumes with its next frame.
    func setPausedAtSource(_ streamIds: Set<UInt32>) -> [SessionMediaEffect] {
        let newlyPaused = streamIds.subtracting(pausedAtSource)
        pausedAtSource = streamIds
        let paused = receivers.values.filter { newlyPaused.contains($0.track.streamId) }
        for receiver in paused { receiver.announcePending = true }
        return paused
            .sorted { $0.track.videoId < $1.track.videoId }
            .map { .remoteVideoPausedAtSource(videoId: $0.track.videoId, attendeeId: $0.track.attendeeId) }
    }

    /// Decodes remote video `videoId` (somebody looks at it) or stops decoding it (its decoder is released). A video
    /// that already delivered frames asks its sender for a key frame at once and skips frames until one arrives; one
    /// marked before its first frame just starts with the key frame every new downlink begins with.
    func setDecoded(_ decoded: Bool, videoId: Int, now: NIODeadline) -> [SessionMediaEffect] {
        if decoded { decodedVideoIds.insert(videoId) } else { decodedVideoIds.remove(videoId) }
        guard let (ssrc, receiver) = receivers.first(where: { $0.value.track.videoId == videoId }),
              receiver.decoding != decoded else { return [] }
        receiver.decoding = decoded
        guard decoded else {
            // Its tile may be gone with its view (unbindVideoView): the next frame brings it back.
            receiver.announcePending = true
            receiver.decoder = nil
            receiver.needsKeyFrame = false
            receiver.awaitingKeyFrame = false
            return []
        }
        guard receiver.framesReceived > 0 else { return [] }
        receiver.awaitingKeyFrame = true
        receiver.lastKeyFrameRequest = now
        receiver.plisSent += 1
        return [.sendRTCP(Self.compound(reportSSRC, .pictureLossIndication(senderSSRC: reportSSRC, mediaSSRC: ssrc)))]
    }

    /// Ends the camera stream, keeping where its numbering stopped (see ``continuedSequenceNumbers``).
    private func retireSender() {
        guard let sender else { return }
        for layer in sender.layers {
            continuedSequenceNumbers[layer.stream.ssrc] = layer.sequenceNumber
            if let rtx = layer.rtx { continuedSequenceNumbers[rtx.ssrc] = rtx.nextSequenceNumber }
        }
        continuedTransportSequenceNumber = sender.transportSequenceNumber
        self.sender = nil
    }

    /// The media connection ended: every received video ends.
    func stop(now: NIODeadline) -> [SessionMediaEffect] {
        configure(send: nil, receive: [], reportSSRC: reportSSRC, now: now)
    }

    // MARK: Sending

    /// One local picture captured at `timestampNanoseconds` (the source's clock): the target bitrate is split over
    /// the layers (``SimulcastUplinkPolicy/allocate(_:to:)``; one layer without simulcast), and each layer that
    /// gets bits is scaled (÷2, ÷4), encoded, packetised and queued in the pacer. All layers of one picture share its
    /// RTP timestamp. Pictures above ``maximumFrameRate`` (``maximumContentFrameRate`` for screen content) and
    /// pictures while not sending are dropped.
    func send(_ image: I420Image, timestampNanoseconds: Int64, now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender else { return [] }
        sender.framesCaptured += 1
        let rate = sender.configuration.screenContent ? Self.maximumContentFrameRate : Self.maximumFrameRate
        if let last = sender.lastEncodedCapture, timestampNanoseconds - last < 1_000_000_000 / Int64(rate) - 2_000_000 {
            return []
        }
        let first = sender.firstCapture ?? timestampNanoseconds
        sender.firstCapture = first
        let elapsed = max(0, timestampNanoseconds - first)
        var timestamp = sender.firstTimestamp &+ UInt32(truncatingIfNeeded: elapsed * 9 / 100_000)
        // Never the same timestamp twice: the receiver would merge two frames.
        if let last = sender.lastTimestamp, Int32(bitPattern: timestamp &- last) <= 0 { timestamp = last &+ 1 }
        let target = sender.targetBitrate
        let split = sender.isSimulcast ? SimulcastUplinkPolicy.allocate(target, to: sender.layers.map(\.stream.setting))
            : [target]
        var encodedAny = false
        var scaled: [Int: I420Image] = [1: image]
        for (layer, bitrate) in zip(sender.layers, split) {
            if bitrate == 0 {
                if layer.allocated > 0 || layer.encoder != nil {
                    // Off: its encoder goes, and when it comes back it starts with a key frame.
                    layer.encoder = nil
                    layer.keyFrameRequested = true
                }
                layer.allocated = 0
                continue
            }
            layer.allocated = bitrate
            let divisor = max(1, layer.stream.setting.scaleDown)
            let picture: I420Image
            if let cached = scaled[divisor] {
                picture = cached
            } else {
                let size = SimulcastUplinkPolicy.scaledSize(width: image.width, height: image.height, scaleDown: divisor)
                guard let made = try? image.scaled(width: size.width, height: size.height) else { continue }
                scaled[divisor] = made
                picture = made
            }
            if encode(picture, on: layer, bitrate: bitrate, timestamp: timestamp, sender: sender) { encodedAny = true }
        }
        probeStarvedLayers(sender, split: split, now: now)
        guard encodedAny else { return pace(now: now) + probePadding(now: now) }
        sender.lastEncodedCapture = timestampNanoseconds
        sender.lastTimestamp = timestamp
        sender.framesEncoded += 1
        return pace(now: now) + probePadding(now: now)
    }

    /// Opens a probe of the simulcast uplink when the estimate, not the cap, leaves an active layer off (`split` gives
    /// it nothing where the cap alone would give it bits): an estimate grows only to about 1.5× what gets through, and
    /// a lower layer often uses far less than its share (a small picture), so without a probe a layer dropped for
    /// bandwidth would never come back. The probe aims at the cap for ``probeDuration``, topped up with padding-only
    /// RTX packets (``probePadding(now:)``); at most every ``probeInterval``, never while the delay says overuse, and
    /// only with RTX and transport-wide congestion control negotiated.
    private func probeStarvedLayers(_ sender: Sender, split: [Int], now: NIODeadline) {
        guard sender.isSimulcast, sender.configuration.rtxPayloadType != nil,
              sender.configuration.transportCCExtensionId != nil, !sender.estimator.isProbing,
              sender.estimator.feedbackCount > 0, sender.estimator.bandwidthUsage != .overusing,
              sender.nextProbeAt.map({ now >= $0 }) ?? true else { return }
        let cap = sender.capBitrate
        guard cap > sender.estimator.targetBitrate else { return }
        let possible = SimulcastUplinkPolicy.allocate(cap, to: sender.layers.map(\.stream.setting))
        guard zip(split, possible).contains(where: { $0 == 0 && $1 > 0 }) else { return }
        sender.estimator.startProbe(bitrate: cap, at: now, duration: Self.probeDuration)
        sender.nextProbeAt = now + Self.probeInterval
        sender.nextProbePadding = now
    }

    /// The padding the open probe wants now (RTX padding on the lowest layer sent, each packet with its transport-wide
    /// sequence number, past the pacer: the probe is the burst), and when to look again (none once its window closed).
    private func probePadding(now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender, let due = sender.nextProbePadding, due <= now else { return [] }
        guard let id = sender.configuration.transportCCExtensionId,
              let layer = sender.layers.first(where: { $0.rtx != nil && $0.allocated > 0 }) else {
            sender.nextProbePadding = nil
            return []
        }
        var effects: [SessionMediaEffect] = []
        var wanted = sender.estimator.probePaddingDue(at: now)
        while wanted > 0, var packet = layer.rtx?.paddingPacket(
            mediaPayloadType: sender.configuration.payloadType, timestamp: layer.lastTimestamp ?? 0,
            count: Self.probePaddingOctets, transportCCExtensionId: id) {
            // The transport-wide number sits after the 12-byte header, the 0xBEDE word and the element's id byte.
            packet[17] = UInt8(sender.transportSequenceNumber >> 8)
            packet[18] = UInt8(truncatingIfNeeded: sender.transportSequenceNumber)
            sender.estimator.packetSent(transportSequenceNumber: sender.transportSequenceNumber, size: packet.count, at: now)
            sender.transportSequenceNumber &+= 1
            wanted -= packet.count
            effects.append(.sendRTP(packet))
        }
        sender.nextProbePadding = sender.estimator.probeWindowEnd(after: now) == nil ? nil : now + Self.probePaddingInterval
        return effects
    }

    /// Encodes one picture on one layer and queues its packets (with the layer's rid on a simulcast layer); false
    /// when the encoder could not be made or rate control dropped the frame.
    private func encode(_ image: I420Image, on layer: SendLayer, bitrate: Int, timestamp: UInt32,
                        sender: Sender) -> Bool {
        do {
            try prepareEncoder(layer, for: image, bitrate: bitrate, sender: sender)
        } catch {
            return false
        }
        guard let encoded = try? layer.encoder?.encode(image, timestamp: timestamp, forceKeyframe: layer.keyFrameRequested)
        else { return false }
        layer.lastTimestamp = timestamp
        layer.framesEncoded += 1
        layer.width = image.width
        layer.height = image.height
        if encoded.isKeyframe { layer.keyFrameRequested = false }
        let payloads = layer.packetizer.payloads(for: encoded.bytes[...])
        var extensions: [(id: UInt8, value: [UInt8])] = sender.configuration.transportCCExtensionId.map { [($0, [0, 0])] } ?? []
        if sender.isSimulcast, let id = sender.configuration.ridExtensionId {
            extensions.append((id, Array(layer.stream.setting.rid.utf8)))
        }
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacket(marker: index == payloads.count - 1, payloadType: sender.configuration.payloadType,
                                   sequenceNumber: layer.sequenceNumber, timestamp: timestamp,
                                   ssrc: layer.stream.ssrc, extensions: extensions, payload: payload[...])
            layer.sequenceNumber &+= 1
            sender.pacer.enqueue(Pacer.Packet(bytes: packet.serialized(), priority: .video))
        }
        return true
    }

    private func prepareEncoder(_ layer: SendLayer, for image: I420Image, bitrate: Int,
                                sender: Sender) throws(VideoCodecError) {
        if let encoder = layer.encoder {
            if encoder.configuration.width != image.width || encoder.configuration.height != image.height {
                try encoder.setResolution(width: image.width, height: image.height)
                layer.keyFrameRequested = true
            }
            if abs(bitrate - layer.encoderBitrate) * 10 > layer.encoderBitrate {
                try encoder.setBitrate(bitrate)
                layer.encoderBitrate = bitrate
            }
            return
        }
        layer.encoder = try VP8Encoder(configuration: .init(
            width: image.width, height: image.height, bitrate: bitrate,
            maxFrameRate: sender.configuration.screenContent ? Self.maximumContentFrameRate : Self.maximumFrameRate,
            content: sender.configuration.screenContent ? .screen : .camera))
        layer.encoderBitrate = bitrate
        layer.keyFrameRequested = true
    }

    /// Sends what the pacer lets go now: each packet gets its transport-wide sequence number as it leaves.
    private func pace(now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender else { return [] }
        var effects: [SessionMediaEffect] = []
        sender.pacer.poll(now: now) { packet in
            guard let header = try? RTPHeader(reading: packet.bytes) else { return }
            if let id = sender.configuration.transportCCExtensionId,
               let range = header.extensionRange(id: id, in: packet.bytes), range.count == 2 {
                packet.bytes[range.lowerBound] = UInt8(sender.transportSequenceNumber >> 8)
                packet.bytes[range.lowerBound + 1] = UInt8(truncatingIfNeeded: sender.transportSequenceNumber)
                sender.estimator.packetSent(transportSequenceNumber: sender.transportSequenceNumber,
                                            size: packet.bytes.count, at: now)
                sender.transportSequenceNumber &+= 1
            }
            if let layer = sender.layer(ssrc: header.ssrc), header.ssrc == layer.stream.ssrc {
                layer.history.store(sequenceNumber: header.sequenceNumber, packet: packet.bytes, now: now)
                layer.packetsSent &+= 1
                layer.octetsSent &+= UInt32(truncatingIfNeeded: header.payloadRange.count)
            }
            effects.append(.sendRTP(packet.bytes))
        }
        return effects
    }

    /// A retransmission of `original` from `layer`: over its RTX stream when negotiated (a simulcast layer's rid
    /// extension becomes the repaired rid, rewritten in place), else the packet again.
    private func repair(_ original: [UInt8], layer: SendLayer, sender: Sender) -> [UInt8]? {
        guard layer.rtx != nil else { return original }
        guard var wrapped = layer.rtx?.wrap(original) else { return nil }
        if sender.isSimulcast, let rid = sender.configuration.ridExtensionId,
           let repaired = sender.configuration.repairedRidExtensionId,
           let header = try? RTPHeader(reading: wrapped), header.oneByteExtensions,
           let range = header.extensionRange(id: rid, in: wrapped), range.lowerBound > 0 {
            wrapped[range.lowerBound - 1] = repaired << 4 | (wrapped[range.lowerBound - 1] & 0x0F)
        }
        return wrapped
    }

    // MARK: Receiving

    /// A received RTP packet of one of the video tracks (after SRTP).
    func received(rtp packet: RTPPacket, now: NIODeadline) -> [SessionMediaEffect] {
        if let id = transportFeedbackExtensionId, let value = packet.extensionBytes(id: id),
           let sequence = RTPHeaderExtensionValue.transportSequenceNumber(value) {
            transportFeedback?.received(transportSequenceNumber: sequence, arrival: now)
        }
        var media = packet
        var ssrc = packet.ssrc
        if let mediaSSRC = rtxToMedia[packet.ssrc] {
            guard let track = receivers[mediaSSRC]?.track,
                  let original = RTXStream.unwrap(packet, mediaSSRC: mediaSSRC, mediaPayloadType: track.payloadType)
            else { return [] }
            media = original
            ssrc = mediaSSRC
        }
        guard let receiver = receivers[ssrc], media.payloadType == receiver.track.payloadType else { return [] }
        receiver.bytesReceived += packet.payload.count
        receiver.packetsReceived += 1
        receiver.nack.received(sequenceNumber: media.sequenceNumber, now: now)
        receiver.statistics.record(sequenceNumber: media.sequenceNumber, rtpTimestamp: media.timestamp, arrival: now)
        var effects: [SessionMediaEffect] = []
        for frame in receiver.assembler.insert(sequenceNumber: media.sequenceNumber, timestamp: media.timestamp,
                                               marker: media.marker, payload: media.payload, now: now) {
            receiver.framesReceived += 1
            let arrival = frame.firstArrival.uptimeNanoseconds.toInt64
            guard receiver.decoding else {
                if let size = frame.keyFrameSize {
                    receiver.needsKeyFrame = false
                    if size != receiver.lastSize { receiver.announcePending = true }
                    receiver.lastSize = size
                } else if receiver.lastSize == (0, 0) {
                    // Without a key frame the video's size is unknown and a decoder bound later could not start.
                    receiver.needsKeyFrame = true
                    continue
                }
                if receiver.announcePending {
                    receiver.announcePending = false
                    effects.append(.remoteVideoArrived(width: receiver.lastSize.width, height: receiver.lastSize.height,
                                                       timestampNanoseconds: arrival, videoId: receiver.track.videoId,
                                                       attendeeId: receiver.track.attendeeId))
                }
                continue
            }
            if receiver.awaitingKeyFrame {
                guard frame.keyFrameSize != nil else {
                    receiver.needsKeyFrame = true
                    continue
                }
                receiver.awaitingKeyFrame = false
            }
            if receiver.decoder == nil { receiver.decoder = try? VP8Decoder() }
            do {
                guard let image = try receiver.decoder?.decode(frame.data) else { continue }
                receiver.needsKeyFrame = false
                receiver.announcePending = false
                receiver.framesDecoded += 1
                receiver.lastSize = (image.width, image.height)
                effects.append(.remoteVideoFrame(image, timestampNanoseconds: arrival,
                                                 videoId: receiver.track.videoId, attendeeId: receiver.track.attendeeId))
            } catch {
                receiver.needsKeyFrame = true
            }
        }
        if receiver.needsKeyFrame, receiver.lastKeyFrameRequest.map({ now - $0 >= Self.decoderKeyFrameInterval }) ?? true {
            receiver.lastKeyFrameRequest = now
            receiver.plisSent += 1
            effects.append(.sendRTCP(Self.compound(reportSSRC, .pictureLossIndication(senderSSRC: reportSSRC, mediaSSRC: ssrc))))
        }
        if receiver.nack.missingCount > 0, nextFeedback == nil { nextFeedback = now + Self.feedbackInterval }
        return effects
    }

    /// RTCP from the server: feedback about the sent camera stream (PLI, FIR, NACK, transport-wide feedback,
    /// report blocks).
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) -> [SessionMediaEffect] {
        for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets where receivers[ssrc] != nil {
            // Echoed in the next report block, so the server can measure its round trip.
            receivers[ssrc]?.statistics.senderReportReceived(ntpTimestamp: NTPTimestamp(ntp), arrival: now)
        }
        guard let sender else { return [] }
        var effects: [SessionMediaEffect] = []
        for packet in packets {
            switch packet {
            case .pictureLossIndication(_, let ssrc):
                guard let layer = sender.layer(ssrc: ssrc) else { continue }
                layer.keyFrameRequested = true
                sender.plisReceived += 1
            case .fullIntraRequest(_, let entries):
                for entry in entries {
                    guard let layer = sender.layer(ssrc: entry.ssrc) else { continue }
                    layer.keyFrameRequested = true
                    sender.firsReceived += 1
                }
            case .nack(_, let ssrc, let lost):
                guard let layer = sender.layer(ssrc: ssrc) else { continue }
                sender.nacksReceived += 1
                for sequence in lost {
                    guard let original = layer.history.packet(sequenceNumber: sequence, now: now),
                          let repair = repair(original, layer: layer, sender: sender) else { continue }
                    sender.pacer.enqueue(Pacer.Packet(bytes: repair, priority: .retransmission))
                }
            case .transportFeedback(let feedback):
                sender.estimator.transportFeedbackReceived(feedback, now: now)
                sender.pacer.setRate(targetBitrate: sender.targetBitrate)
            case .receiverEstimatedMaximumBitrate(_, let bitrate, let ssrcs)
                where sender.layers.contains(where: { ssrcs.contains($0.stream.ssrc) }):
                sender.remoteEstimate = Int(clamping: bitrate)
                sender.pacer.setRate(targetBitrate: sender.targetBitrate)
            case .receiverReport(_, let blocks), .senderReport(_, _, _, _, _, let blocks):
                // Loss is judged on the lowest layer sent (every layer crosses the same uplink).
                let lowest = sender.layers.first { $0.stream.setting.isActive }?.stream.ssrc
                for block in blocks {
                    guard let layer = sender.layer(ssrc: block.ssrc), layer.stream.ssrc == block.ssrc else { continue }
                    layer.lastReport = block
                    guard block.ssrc == lowest else { continue }
                    sender.estimator.receiverReportReceived(fractionLost: block.fractionLost, now: now)
                    sender.pacer.setRate(targetBitrate: sender.targetBitrate)
                }
            default:
                break
            }
        }
        effects += pace(now: now)
        return effects
    }

    // MARK: Timers

    /// Paced packets, NACKs and key-frame requests for the received streams, and once a second the reports.
    func tick(now: NIODeadline) -> [SessionMediaEffect] {
        var effects = pace(now: now) + probePadding(now: now)
        if let due = transportFeedback?.nextDeadline, now >= due, let messages = transportFeedback?.poll(now: now) {
            for message in messages { effects.append(.sendRTCP(Self.compound(reportSSRC, .transportFeedback(message)))) }
        }
        if let due = nextFeedback, now >= due {
            var pending = false
            for ssrc in receivers.keys.sorted() {
                guard let receiver = receivers[ssrc] else { continue }
                let missing = receiver.nack.due(now: now, roundTrip: roundTrip)
                if !missing.isEmpty {
                    receiver.nacksSent += 1
                    effects.append(.sendRTCP(Self.compound(reportSSRC, .nack(senderSSRC: reportSSRC, mediaSSRC: ssrc,
                                                                             lost: missing))))
                }
                pending = pending || receiver.nack.missingCount > 0
            }
            nextFeedback = pending ? now + Self.feedbackInterval : nil
        }
        for ssrc in receivers.keys.sorted() where receivers[ssrc]?.assembler.keyFrameRequestDue(now: now) == true {
            receivers[ssrc]?.lastKeyFrameRequest = now
            receivers[ssrc]?.plisSent += 1
            effects.append(.sendRTCP(Self.compound(reportSSRC, .pictureLossIndication(senderSSRC: reportSSRC, mediaSSRC: ssrc))))
        }
        if let due = nextReport, now >= due {
            let next = due + Self.reportInterval
            nextReport = next > now ? next : now + Self.reportInterval
            var blocks: [UInt32: RTCPPacket.ReportBlock] = [:]
            for ssrc in receivers.keys.sorted() {
                if let block = receivers[ssrc]?.statistics.reportBlock(ssrc: ssrc, now: now) { blocks[ssrc] = block }
            }
            effects += reports(blocks, now: now)
            effects.append(.videoStatistics(receiveStatistics))
            if sender != nil || !receivers.isEmpty { effects.append(.videoMetrics(measure(blocks))) }
        }
        return effects
    }

    /// The second's metrics since the previous report (``reportInterval`` apart), and the counters for the next.
    private func measure(_ blocks: [UInt32: RTCPPacket.ReportBlock]) -> VideoClientMetrics {
        let seconds = Double(Self.reportInterval.nanoseconds) / 1e9
        var send: VideoClientMetrics.Send?
        if let sender {
            let before = sender.reported
            let packetsSent = sender.layers.reduce(UInt32(0)) { $0 &+ $1.packetsSent }
            let octetsSent = sender.layers.reduce(UInt32(0)) { $0 &+ $1.octetsSent }
            // The largest layer sent stands for the camera; loss and jitter of the lowest.
            let top = sender.layers.last { $0.allocated > 0 } ?? sender.layers[0]
            let lastReport = (sender.layers.first { $0.allocated > 0 } ?? sender.layers[0]).lastReport
            send = VideoClientMetrics.Send(
                streamId: sender.configuration.streamId,
                bitrate: Double(octetsSent &- before.octets) * 8 / seconds,
                packetsPerSecond: Double(packetsSent &- before.packets) / seconds,
                inputFramesPerSecond: Double(sender.framesCaptured - before.framesCaptured) / seconds,
                encodedFramesPerSecond: Double(sender.framesEncoded - before.framesEncoded) / seconds,
                lossPercent: lastReport.map { Double($0.fractionLost) * 100 / 256 },
                jitterMilliseconds: lastReport.map { Double($0.jitter) / 90 },
                roundTripMilliseconds: Double(roundTrip.nanoseconds) / 1e6,
                availableBandwidth: Double(sender.targetBitrate),
                nacksReceived: Double(sender.nacksReceived - before.nacks) / seconds,
                plisReceived: Double(sender.plisReceived - before.plis) / seconds,
                firsReceived: Double(sender.firsReceived - before.firs) / seconds,
                width: top.width, height: top.height)
            sender.reported = SendCounters(packets: packetsSent, octets: octetsSent,
                                           framesEncoded: sender.framesEncoded, framesCaptured: sender.framesCaptured,
                                           nacks: sender.nacksReceived, plis: sender.plisReceived,
                                           firs: sender.firsReceived)
        }
        var receive: [VideoClientMetrics.Receive] = []
        for ssrc in receivers.keys.sorted() {
            guard let receiver = receivers[ssrc] else { continue }
            let before = receiver.reported
            let block = blocks[ssrc]
            var expected = 0, lost = 0
            if let block {
                if let previous = before.block {
                    expected = Int(block.extendedHighestSequence &- previous.extendedHighestSequence)
                    lost = Int(block.cumulativeLost) - Int(previous.cumulativeLost)
                } else {
                    // From the first packet on (RTX repairs are not expected packets of their own).
                    expected = Int(clamping: receiver.statistics.packetsExpected)
                    lost = Int(block.cumulativeLost)
                }
            }
            receive.append(VideoClientMetrics.Receive(
                streamId: receiver.track.streamId,
                bitrate: Double(receiver.bytesReceived - before.bytes) * 8 / seconds,
                packetsPerSecond: Double(receiver.packetsReceived - before.packets) / seconds,
                expected: max(expected, 0), lost: min(max(lost, 0), max(expected, 0)),
                decodedFramesPerSecond: Double(receiver.framesDecoded - before.framesDecoded) / seconds,
                nacksSent: Double(receiver.nacksSent - before.nacks) / seconds,
                plisSent: Double(receiver.plisSent - before.plis) / seconds,
                jitterMilliseconds: block.map { Double($0.jitter) / 90 },
                width: receiver.lastSize.width, height: receiver.lastSize.height))
            receiver.reported = ReceiveCounters(bytes: receiver.bytesReceived, packets: receiver.packetsReceived,
                                                framesDecoded: receiver.framesDecoded, nacks: receiver.nacksSent,
                                                plis: receiver.plisSent, block: block ?? before.block)
        }
        return VideoClientMetrics(send: send, receive: receive)
    }

    /// A sender report for the camera stream and a receiver report (`blocks`) about every received stream.
    private func reports(_ blockBySSRC: [UInt32: RTCPPacket.ReportBlock], now: NIODeadline) -> [SessionMediaEffect] {
        var packets: [RTCPPacket] = []
        // One sender report per layer that sent, all on the pictures' shared timestamp (the server aligns layers
        // with them when it switches a receiver between layers).
        for layer in sender?.layers ?? [] {
            guard let timestamp = sender?.lastTimestamp, layer.lastTimestamp != nil else { continue }
            packets.append(.senderReport(ssrc: layer.stream.ssrc,
                                         ntpTimestamp: NTPTimestamp(unixNanoseconds: UInt64(now.uptimeNanoseconds)).value,
                                         rtpTimestamp: timestamp, packetCount: layer.packetsSent,
                                         octetCount: layer.octetsSent, reports: []))
        }
        let blocks = blockBySSRC.keys.sorted().compactMap { blockBySSRC[$0] }
        if !blocks.isEmpty { packets.append(.receiverReport(ssrc: reportSSRC, reports: blocks)) }
        guard !packets.isEmpty else { return [] }
        let cname = sender?.configuration.cname ?? "carillon"
        packets.append(.sourceDescription(chunks: [.init(ssrc: sender?.configuration.ssrc ?? reportSSRC,
                                                         items: [.cname(cname)])]))
        return [.sendRTCP(packets.flatMap { $0.serialized() })]
    }

    private static func compound(_ ssrc: UInt32, _ packet: RTCPPacket) -> [UInt8] {
        RTCPPacket.receiverReport(ssrc: ssrc, reports: []).serialized() + packet.serialized()
    }
}

private extension UInt64 {
    var toInt64: Int64 { Int64(truncatingIfNeeded: self) }
}
