import CarillonCodecs
import CarillonRTC
import NIOCore

/// A VP8 stream sent on one transport (sans-IO): a client session's camera (the sending half of its video core) or
/// `carillon peer`'s pattern. Each local picture is split over the layers (one without simulcast), scaled, encoded
/// with VP8, packetised (RFC 7741), kept for retransmission and sent through a ``PacedSender`` (paced at 2.5x the
/// target, a transport-wide sequence number written as each packet leaves), the send path the server's downlinks use
/// too. The target follows the send-side estimate (transport-wide feedback when negotiated, else report blocks),
/// within the cap and, with one layer sent, the other side's REMB; a simulcast layer left off by the estimate is
/// probed for. PLI and FIR ask for a key frame; NACKs are answered over RTX (the packet again without it).
///
/// Costs per sent picture: one encode per layer (about 1-4 ms at 320x180-640x360) and one array per packet.
/// Threading: not thread-safe; one event loop owns it (the session's, or the peer's).
public final class VideoSendStream {
    /// The cap without simulcast when the configuration sets none, bit/s.
    public static let defaultMaximumBitrate = 1_400_000
    /// The estimator's ceiling with simulcast when the configuration sets no cap: the largest sum of layer caps (FHD
    /// low + hi).
    public static let defaultSimulcastMaximumBitrate = 2_500_000
    /// Where the send-side estimate starts, bit/s.
    public static let startBitrate = 600_000
    /// The least the estimate goes down to, bit/s.
    public static let minimumBitrate = 60_000
    /// Least time between two probes of the simulcast uplink (see ``probeStarvedLayers(_:split:now:)``).
    public static let probeInterval = TimeAmount.seconds(3)
    /// Pictures faster than this are dropped before encoding.
    public static let maximumFrameRate = 30
    /// Screen content faster than this is dropped before encoding (Chime's browser client caps content at 15 fps).
    public static let maximumContentFrameRate = 15

    /// The sending state while sending (for the feedback extension).
    var sender: Sender?
    /// The next RTP sequence number of each SSRC this session has sent video from (camera and RTX), and the next
    /// transport-wide one, kept when the camera stops. A camera started again on the same transport sends from the
    /// same SSRCs, and the server's SRTP replay window (RFC 3711 §3.3.2) drops every packet numbered behind what it
    /// has already seen: a fresh random start would lose the restarted camera whenever it fell behind.
    private var continuedSequenceNumbers: [UInt32: UInt16] = [:]
    private var continuedTransportSequenceNumber: UInt16 = 0

    /// A stream that sends nothing until ``configure(_:)``.
    public init() {}

    /// Whether the camera stream is configured to be sent.
    public var isSending: Bool { sender != nil }

    /// How it is sent, while it is.
    public var configuration: VideoSendConfiguration? { sender?.configuration }

    /// The current target of the encoder, bit/s; nil while not sending.
    public var targetBitrate: Int? { sender?.targetBitrate }

    /// Frames encoded per sent layer (one entry without simulcast; low, mid, hi with it).
    public var layerFramesEncoded: [Int] { sender?.layers.map(\.framesEncoded) ?? [] }

    /// The bitrate the split gave each sent layer for the latest picture, bit/s (0: not encoded).
    public var layerBitrates: [Int] { sender?.layers.map(\.allocated) ?? [] }

    /// What the stream sent and was asked for since it started (zero while not sending).
    public var statistics: Statistics {
        guard let sender else { return Statistics() }
        return Statistics(
            framesCaptured: sender.framesCaptured, framesEncoded: sender.framesEncoded,
            keyFramesEncoded: sender.keyFramesEncoded, framesDropped: sender.framesDropped,
            packetsSent: sender.layers.reduce(0) { $0 + Int($1.packetsSent) },
            bytesSent: sender.layers.reduce(0) { $0 + Int($1.octetsSent) },
            nacksReceived: sender.nacksReceived, packetsNacked: sender.packetsNacked,
            retransmissionsQueued: sender.retransmissionsQueued, plisReceived: sender.plisReceived,
            firsReceived: sender.firsReceived)
    }

    /// When ``tick(now:)`` is next due: the pacer's next packet, or the open probe's next padding.
    public var nextDeadline: NIODeadline? {
        sender?.paced.nextDeadline
    }

    /// Applies a (re)negotiation: the stream to send (nil: stop sending). The same SSRCs and transport-cc extension
    /// keep the running stream (its layers' settings change in place); otherwise a new one starts, numbered on from
    /// any earlier stream on them.
    public func configure(_ send: VideoSendConfiguration?) {
        if let send {
            let ssrcs = Sender.streams(of: send).map(\.ssrc)
            if let sender, sender.layers.map(\.stream.ssrc) == ssrcs,
               sender.paced.transportCCExtensionId == send.transportCCExtensionId {
                sender.update(send)
            } else {
                retireSender()
                let ceiling = send.maximumBitrate > 0 ? send.maximumBitrate
                    : send.simulcast.isEmpty ? Self.defaultMaximumBitrate : Self.defaultSimulcastMaximumBitrate
                let paced = PacedSender(
                    estimator: .init(minimumBitrate: Self.minimumBitrate,
                                     startBitrate: Self.startBitrate, maximumBitrate: ceiling),
                    transportCCExtensionId: send.transportCCExtensionId,
                    firstTransportSequenceNumber: continuedTransportSequenceNumber)
                let created = Sender(configuration: send, paced: paced)
                for layer in created.layers {
                    if let next = continuedSequenceNumbers[layer.stream.ssrc] { layer.sequenceNumber = next }
                }
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
    }

    /// Ends the camera stream, keeping where its numbering stopped (see ``continuedSequenceNumbers``).
    private func retireSender() {
        guard let sender else { return }
        for layer in sender.layers {
            continuedSequenceNumbers[layer.stream.ssrc] = layer.sequenceNumber
            if let rtx = layer.rtx { continuedSequenceNumbers[rtx.ssrc] = rtx.nextSequenceNumber }
        }
        continuedTransportSequenceNumber = sender.paced.transportSequenceNumber
        self.sender = nil
    }

    // MARK: Sending

    /// One local picture captured at `timestampNanoseconds` (the source's clock): the target bitrate is split over
    /// the layers (``SimulcastUplinkPolicy/allocate(_:to:)``; one layer without simulcast), and each layer that
    /// gets bits is scaled (÷2, ÷4), encoded, packetised and queued in the pacer. All layers of one picture share its
    /// RTP timestamp. Pictures above ``maximumFrameRate`` (``maximumContentFrameRate`` for screen content) and
    /// pictures while not sending are dropped.
    public func send(_ image: I420Image, timestampNanoseconds: Int64, now: NIODeadline) -> [VideoStreamEffect] {
        guard let sender else { return [] }
        guard let timestamp = Self.admit(capturedAt: timestampNanoseconds, sender: sender) else { return [] }
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
        if encodedAny { Self.sent(timestamp: timestamp, sender: sender) }
        return pace(now: now) + probePadding(now: now)
    }

    /// One frame that is already VP8 (a bot's prepared video), captured at `timestampNanoseconds`: packetised and
    /// queued in the pacer as an encoded picture is, on the one stream of a sender without simulcast (a simulcast
    /// sender takes only pictures it scales itself: nothing is sent). Key frames cannot be made on request, so a PLI
    /// waits for the source's next one. Frames above the frame-rate cap are dropped as pictures are.
    public func send(encoded frame: EncodedVideoFrame, timestampNanoseconds: Int64, now: NIODeadline) -> [VideoStreamEffect] {
        guard let sender, !sender.isSimulcast, let layer = sender.layers.first else { return [] }
        guard let timestamp = Self.admit(capturedAt: timestampNanoseconds, sender: sender) else { return [] }
        layer.allocated = sender.targetBitrate
        queue(frame, on: layer, timestamp: timestamp, sender: sender)
        Self.sent(timestamp: timestamp, sender: sender)
        return pace(now: now) + probePadding(now: now)
    }

    /// Counts a picture captured at `timestampNanoseconds` and returns its RTP timestamp, or nil when it would take
    /// the stream above ``maximumFrameRate`` (``maximumContentFrameRate`` for screen content). The cap is a token
    /// bucket on the capture clock holding two pictures, refilled at the cap with 2 ms of slack per picture (a source
    /// at exactly the cap is never cut by timer jitter): a picture that comes late does not cost the one after it
    /// that comes on time, as measuring from the last picture sent would, while a faster source is cut to the cap
    /// on average. The timestamp runs at 90 kHz from the first capture and is never the previous frame's (the
    /// receiver would merge two frames).
    private static func admit(capturedAt timestampNanoseconds: Int64, sender: Sender) -> UInt32? {
        sender.framesCaptured += 1
        let rate = sender.configuration.screenContent ? Self.maximumContentFrameRate : Self.maximumFrameRate
        let refill = 1_000_000_000 / Double(1_000_000_000 / rate - 2_000_000)
        if sender.frameRateLimit?.refillPerSecond != refill {
            sender.frameRateLimit = TokenBucket(capacity: 2, refillPerSecond: refill)
        }
        let first = sender.firstCapture ?? timestampNanoseconds
        let elapsed = max(0, timestampNanoseconds - first)
        guard sender.frameRateLimit!.take(now: .uptimeNanoseconds(UInt64(elapsed))) else { return nil }
        sender.firstCapture = first
        var timestamp = sender.firstTimestamp &+ UInt32(truncatingIfNeeded: elapsed * 9 / 100_000)
        if let last = sender.lastTimestamp, Int32(bitPattern: timestamp &- last) <= 0 { timestamp = last &+ 1 }
        return timestamp
    }

    /// A picture went out with `timestamp`: the next is numbered after it.
    private static func sent(timestamp: UInt32, sender: Sender) {
        sender.lastTimestamp = timestamp
        sender.framesEncoded += 1
    }

    /// Opens a probe of the simulcast uplink when the estimate, not the cap, leaves an active layer off (`split` gives
    /// it nothing where the cap alone would give it bits): an estimate grows only to about 1.5× what gets through, and
    /// a lower layer often uses far less than its share (a small picture), so without a probe a layer dropped for
    /// bandwidth would never come back. The probe aims at the cap for `PacedSender.probeDuration`, topped up with
    /// padding-only RTX packets (``probePadding(now:)``); at most every ``probeInterval``, never while the delay says overuse, and
    /// only with RTX and transport-wide congestion control negotiated.
    private func probeStarvedLayers(_ sender: Sender, split: [Int], now: NIODeadline) {
        guard sender.isSimulcast, sender.configuration.rtxPayloadType != nil,
              sender.configuration.transportCCExtensionId != nil, !sender.paced.estimator.isProbing,
              sender.paced.estimator.feedbackCount > 0, sender.paced.estimator.bandwidthUsage != .overusing,
              sender.nextProbeAt.map({ now >= $0 }) ?? true else { return }
        let cap = sender.capBitrate
        guard cap > sender.paced.estimator.targetBitrate else { return }
        let possible = SimulcastUplinkPolicy.allocate(cap, to: sender.layers.map(\.stream.setting))
        guard zip(split, possible).contains(where: { $0 == 0 && $1 > 0 }) else { return }
        sender.paced.startProbe(bitrate: cap, now: now)
        sender.nextProbeAt = now + Self.probeInterval
    }

    /// The padding the open probe wants now (RTX padding on the lowest layer sent, each packet with its transport-wide
    /// sequence number, past the pacer: the probe is the burst), and when to look again (none once its window closed).
    func probePadding(now: NIODeadline) -> [VideoStreamEffect] {
        guard let sender, let due = sender.paced.nextProbePadding, due <= now else { return [] }
        guard let layer = sender.layers.first(where: { $0.rtx != nil && $0.allocated > 0 }) else {
            sender.paced.stopProbePadding()
            return []
        }
        var effects: [VideoStreamEffect] = []
        sender.paced.sendProbePadding(from: &layer.rtx!, mediaPayloadType: sender.configuration.payloadType,
                                      timestamp: layer.lastTimestamp ?? 0, now: now) { effects.append(.sendRTP($0)) }
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
        else {
            sender.framesDropped += 1
            return false
        }
        queue(encoded, on: layer, timestamp: timestamp, sender: sender)
        return true
    }

    /// Packetises one encoded frame of `layer` and queues its packets in the pacer (with the layer's rid on a
    /// simulcast layer, and a transport-wide sequence number slot filled as each leaves).
    private func queue(_ encoded: EncodedVideoFrame, on layer: SendLayer, timestamp: UInt32, sender: Sender) {
        layer.lastTimestamp = timestamp
        layer.framesEncoded += 1
        layer.width = encoded.width
        layer.height = encoded.height
        if encoded.isKeyframe {
            layer.keyFrameRequested = false
            sender.keyFramesEncoded += 1
        }
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
            sender.paced.enqueue(packet.serialized(), priority: .video)
        }
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
    func pace(now: NIODeadline) -> [VideoStreamEffect] {
        guard let sender else { return [] }
        var effects: [VideoStreamEffect] = []
        sender.paced.send(now: now) { bytes in
            guard let header = try? RTPHeader(reading: bytes) else { return }
            if let layer = sender.layer(ssrc: header.ssrc), header.ssrc == layer.stream.ssrc {
                layer.history.store(sequenceNumber: header.sequenceNumber, packet: bytes, now: now)
                layer.packetsSent &+= 1
                layer.octetsSent &+= UInt32(truncatingIfNeeded: header.payloadRange.count)
            }
            effects.append(.sendRTP(bytes))
        }
        return effects
    }

    /// A retransmission of `original` from `layer`: over its RTX stream when negotiated (a simulcast layer's rid
    /// extension becomes the repaired rid, rewritten in place), else the packet again.
    func repair(_ original: [UInt8], layer: SendLayer, sender: Sender) -> [UInt8]? {
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
}

