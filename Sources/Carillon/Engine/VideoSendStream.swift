import CarillonCodecs
import CarillonRTC
import NIOCore

/// The camera stream of a client session (sans-IO), the sending half of ``SessionVideoCore``: each local picture is
/// split over the layers (one without simulcast), scaled, encoded with VP8, packetised (RFC 7741), kept for
/// retransmission and sent through a ``PacedSender`` (paced at 2.5x the target, a transport-wide sequence number
/// written as each packet leaves), the send path the server's downlinks use too. The target follows the send-side
/// estimate from the server's transport-wide feedback, within the app's cap and, with one layer sent, the server's
/// REMB; a simulcast layer left off by the estimate is probed for.
/// PLI and FIR ask for a key frame; NACKs are answered over RTX.
///
/// Costs per sent picture: one encode per layer (about 1-4 ms at 320x180-640x360) and one array per packet.
/// Threading: not thread-safe; the session's event loop owns it.
final class VideoSendStream {
    typealias SendConfiguration = SessionVideoCore.SendConfiguration
    typealias SimulcastStream = SessionVideoCore.SimulcastStream

    private var sender: Sender?
    /// The next RTP sequence number of each SSRC this session has sent video from (camera and RTX), and the next
    /// transport-wide one, kept when the camera stops. A camera started again on the same transport sends from the
    /// same SSRCs, and the server's SRTP replay window (RFC 3711 §3.3.2) drops every packet numbered behind what it
    /// has already seen: a fresh random start would lose the restarted camera whenever it fell behind.
    private var continuedSequenceNumbers: [UInt32: UInt16] = [:]
    private var continuedTransportSequenceNumber: UInt16 = 0

    /// Whether the camera stream is configured to be sent.
    var isSending: Bool { sender != nil }

    /// How it is sent, while it is.
    var configuration: SendConfiguration? { sender?.configuration }

    /// The current target of the encoder, bit/s; nil while not sending.
    var targetBitrate: Int? { sender?.targetBitrate }

    /// Pictures encoded since sending started.
    var framesEncoded: Int { sender?.framesEncoded ?? 0 }

    /// Media packets that left the pacer since sending started, over every layer (retransmissions and padding not
    /// counted).
    var packetsSent: Int { sender?.layers.reduce(0) { $0 + Int($1.packetsSent) } ?? 0 }

    /// Frames encoded per sent layer (one entry without simulcast; low, mid, hi with it).
    var layerFramesEncoded: [Int] { sender?.layers.map(\.framesEncoded) ?? [] }

    /// The bitrate the split gave each sent layer for the latest picture, bit/s (0: not encoded).
    var layerBitrates: [Int] { sender?.layers.map(\.allocated) ?? [] }

    /// When ``tick(now:)`` is next due: the pacer's next packet, or the open probe's next padding.
    var nextDeadline: NIODeadline? {
        sender?.paced.nextDeadline
    }

    /// Applies a (re)negotiation: the stream to send (nil: stop sending). The same SSRCs and transport-cc extension
    /// keep the running stream (its layers' settings change in place); otherwise a new one starts, numbered on from
    /// any earlier stream on them.
    func configure(_ send: SendConfiguration?) {
        if let send {
            let ssrcs = Sender.streams(of: send).map(\.ssrc)
            if let sender, sender.layers.map(\.stream.ssrc) == ssrcs,
               sender.paced.transportCCExtensionId == send.transportCCExtensionId {
                sender.update(send)
            } else {
                retireSender()
                let ceiling = send.maximumBitrate > 0 ? send.maximumBitrate
                    : send.simulcast.isEmpty ? SessionVideoCore.defaultMaximumBitrate : SessionVideoCore.defaultSimulcastMaximumBitrate
                let paced = PacedSender(
                    estimator: .init(minimumBitrate: SessionVideoCore.minimumBitrate,
                                     startBitrate: SessionVideoCore.startBitrate, maximumBitrate: ceiling),
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
    func send(_ image: I420Image, timestampNanoseconds: Int64, now: NIODeadline) -> [SessionMediaEffect] {
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
        if encodedAny { Self.sent(capturedAt: timestampNanoseconds, timestamp: timestamp, sender: sender) }
        return pace(now: now) + probePadding(now: now)
    }

    /// One frame that is already VP8 (a bot's prepared video), captured at `timestampNanoseconds`: packetised and
    /// queued in the pacer as an encoded picture is, on the one stream of a sender without simulcast (a simulcast
    /// sender takes only pictures it scales itself: nothing is sent). Key frames cannot be made on request, so a PLI
    /// waits for the source's next one. Frames above the frame-rate cap are dropped as pictures are.
    func send(encoded frame: EncodedVideoFrame, timestampNanoseconds: Int64, now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender, !sender.isSimulcast, let layer = sender.layers.first else { return [] }
        guard let timestamp = Self.admit(capturedAt: timestampNanoseconds, sender: sender) else { return [] }
        layer.allocated = sender.targetBitrate
        queue(frame, on: layer, timestamp: timestamp, sender: sender)
        Self.sent(capturedAt: timestampNanoseconds, timestamp: timestamp, sender: sender)
        return pace(now: now) + probePadding(now: now)
    }

    /// Counts a picture captured at `timestampNanoseconds` and returns its RTP timestamp, or nil when it comes too
    /// soon after the last one sent (above ``SessionVideoCore/maximumFrameRate``, or
    /// ``SessionVideoCore/maximumContentFrameRate`` for screen content). The timestamp runs at 90 kHz from the first
    /// capture and is never the previous frame's (the receiver would merge two frames).
    private static func admit(capturedAt timestampNanoseconds: Int64, sender: Sender) -> UInt32? {
        sender.framesCaptured += 1
        let rate = sender.configuration.screenContent ? SessionVideoCore.maximumContentFrameRate : SessionVideoCore.maximumFrameRate
        if let last = sender.lastEncodedCapture, timestampNanoseconds - last < 1_000_000_000 / Int64(rate) - 2_000_000 {
            return nil
        }
        let first = sender.firstCapture ?? timestampNanoseconds
        sender.firstCapture = first
        let elapsed = max(0, timestampNanoseconds - first)
        var timestamp = sender.firstTimestamp &+ UInt32(truncatingIfNeeded: elapsed * 9 / 100_000)
        if let last = sender.lastTimestamp, Int32(bitPattern: timestamp &- last) <= 0 { timestamp = last &+ 1 }
        return timestamp
    }

    /// A picture captured at `timestampNanoseconds` went out with `timestamp`: the next is measured from it.
    private static func sent(capturedAt timestampNanoseconds: Int64, timestamp: UInt32, sender: Sender) {
        sender.lastEncodedCapture = timestampNanoseconds
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
        sender.nextProbeAt = now + SessionVideoCore.probeInterval
    }

    /// The padding the open probe wants now (RTX padding on the lowest layer sent, each packet with its transport-wide
    /// sequence number, past the pacer: the probe is the burst), and when to look again (none once its window closed).
    private func probePadding(now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender, let due = sender.paced.nextProbePadding, due <= now else { return [] }
        guard let layer = sender.layers.first(where: { $0.rtx != nil && $0.allocated > 0 }) else {
            sender.paced.stopProbePadding()
            return []
        }
        var effects: [SessionMediaEffect] = []
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
        else { return false }
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
            maxFrameRate: sender.configuration.screenContent ? SessionVideoCore.maximumContentFrameRate : SessionVideoCore.maximumFrameRate,
            content: sender.configuration.screenContent ? .screen : .camera))
        layer.encoderBitrate = bitrate
        layer.keyFrameRequested = true
    }

    /// Sends what the pacer lets go now: each packet gets its transport-wide sequence number as it leaves.
    private func pace(now: NIODeadline) -> [SessionMediaEffect] {
        guard let sender else { return [] }
        var effects: [SessionMediaEffect] = []
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

    // MARK: Feedback and reports

    /// RTCP from the server about the camera stream: PLI, FIR, NACK, transport-wide feedback, REMB and report blocks;
    /// returns what the pacer lets go after it.
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) -> [SessionMediaEffect] {
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
                    sender.paced.enqueue(repair, priority: .retransmission)
                }
            case .transportFeedback(let feedback):
                sender.paced.transportFeedbackReceived(feedback, now: now)
                sender.paced.setRate(targetBitrate: sender.targetBitrate)
            case .receiverEstimatedMaximumBitrate(_, let bitrate, let ssrcs)
                where sender.layers.contains(where: { ssrcs.contains($0.stream.ssrc) }):
                sender.remoteEstimate = Int(clamping: bitrate)
                sender.paced.setRate(targetBitrate: sender.targetBitrate)
            case .receiverReport(_, let blocks), .senderReport(_, _, _, _, _, let blocks):
                // Loss is judged on the lowest layer sent (every layer crosses the same uplink).
                let lowest = sender.layers.first { $0.stream.setting.isActive }?.stream.ssrc
                for block in blocks {
                    guard let layer = sender.layer(ssrc: block.ssrc), layer.stream.ssrc == block.ssrc else { continue }
                    layer.lastReport = block
                    guard block.ssrc == lowest else { continue }
                    sender.paced.receiverReportReceived(fractionLost: block.fractionLost, now: now)
                    sender.paced.setRate(targetBitrate: sender.targetBitrate)
                }
            default:
                break
            }
        }
        effects += pace(now: now)
        return effects
    }

    /// What the pacer and an open probe send now.
    func tick(now: NIODeadline) -> [SessionMediaEffect] { pace(now: now) + probePadding(now: now) }

    /// One sender report per layer that sent, all on the pictures' shared timestamp (the server aligns layers with
    /// them when it switches a receiver between layers).
    func senderReports(now: NIODeadline) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        for layer in sender?.layers ?? [] {
            guard let timestamp = sender?.lastTimestamp, layer.lastTimestamp != nil else { continue }
            packets.append(.senderReport(ssrc: layer.stream.ssrc,
                                         ntpTimestamp: NTPTimestamp(unixNanoseconds: UInt64(now.uptimeNanoseconds)).value,
                                         rtpTimestamp: timestamp, packetCount: layer.packetsSent,
                                         octetCount: layer.octetsSent, reports: []))
        }
        return packets
    }

    /// The send metrics of the last `seconds` (since the previous call), and the counters for the next.
    func measure(seconds: Double, roundTrip: TimeAmount) -> VideoClientMetrics.Send? {
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
        return send
    }
}
