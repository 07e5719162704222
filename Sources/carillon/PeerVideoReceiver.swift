import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// The receiving half of `carillon peer --video`, sans-IO: VP8 packets (RTX unwrapped) are assembled into frames
/// (``VP8FrameAssembler``) and decoded, and every decoded picture is read as a ``VideoTestPattern`` (its counter,
/// when the sender draws one, and the colour of its top-right area), which is what proves the content came
/// through. Gaps are NACKed when NACK was agreed; a stalled assembler or a decoder that lost its reference asks for
/// a key frame (PLI, or FIR when only that was agreed); transport-wide feedback goes back when transport-cc was
/// agreed, so the sender's bandwidth estimate can grow.
///
/// Threading: not thread-safe; the peer's event loop owns it.
final class PeerVideoReceiver {
    /// What arrived and was decoded so far.
    struct Statistics: Sendable {
        var packets = 0
        var bytes = 0
        var rtxPackets = 0
        /// RTX packets without media (bandwidth probes).
        var paddingPackets = 0
        var framesDecoded = 0
        var keyFramesDecoded = 0
        var decodeErrors = 0
        var width = 0
        var height = 0
        var firstDecode: NIODeadline?
        var lastDecode: NIODeadline?
        /// Decoded pictures whose pattern counter read clearly (24 cells and the CRC).
        var countersRead = 0
        var firstCounter: Int?
        var lastCounter: Int?
        /// Counters read that were older than the one before.
        var counterRegressions = 0
        /// Counters read that equalled the one before (the sender repeated a picture).
        var counterRepeats = 0
        /// Decoded pictures per palette colour nearest to their colour area ("none" when nothing is near).
        var colors: [String: Int] = [:]
        var lastReading: VideoPatternReading?
        var keyFrameRequests = 0
        var nacksSent = 0
        var packetsNacked = 0
        var feedbackSent = 0
        /// Packets discarded on purpose (``dropEvery``), as if the network lost them.
        var packetsDropped = 0
        /// The sequence numbers of those packets, and of every packet a NACK asked for: so the report can say which
        /// discarded packets a NACK should have covered and did not.
        var droppedSequences: Set<UInt16> = []
        var nackedSequences: Set<UInt16> = []
        /// Discarded packets that came back over RTX.
        var recoveredSequences: Set<UInt16> = []
        /// The newest media sequence number that arrived (not discarded).
        var newestSequence: UInt16?
    }

    /// A stall this long (several NACK round trips on loopback) asks for a key frame.
    static let keyFrameRequestDelay = TimeAmount.milliseconds(200)
    /// The least time between two key-frame requests for a decoder that lost its reference.
    static let decoderKeyFrameInterval = TimeAmount.milliseconds(500)
    /// How often gaps are checked for NACKs; they are repeated once per round trip.
    static let nackInterval = TimeAmount.milliseconds(10)
    /// The round trip NACKs are repeated after (loopback plus the other side's scheduling).
    static let roundTrip = TimeAmount.milliseconds(50)

    let parameters: PeerVideoParameters
    /// Every this many media packets one is discarded on arrival (0: none), so NACK, RTX and key-frame requests run
    /// as they would on a lossy network. Retransmissions are never discarded.
    let dropEvery: Int
    /// The SSRC of the received video: announced in SDP, else learnt from the first packet.
    private(set) var mediaSSRC: UInt32?
    private(set) var statistics = Statistics()
    /// Receive statistics for the report block about the stream.
    private var receiveStatistics = RTPReceiveStatistics(clockRate: 90_000)
    private var assembler = VP8FrameAssembler(configuration: .init(keyFrameRequestDelay: keyFrameRequestDelay))
    private let decoder: VP8Decoder
    private var nack = NackGenerator()
    private var nextNack: NIODeadline?
    private var feedback: TransportFeedbackGenerator?
    private var lastDecoderKeyFrameRequest: NIODeadline?
    private var firSequence: UInt8 = 0
    /// The packets captured so far, when capturing.
    private(set) var capture: VideoPacketCapture?

    /// Creates a receiver that discards every `dropEvery`th media packet (0: none); with `capture`, the first packets
    /// of the stream are kept as they arrived.
    init(parameters: PeerVideoParameters, dropEvery: Int = 0, capture: VideoPacketCapture?) throws(PeerVideoError) {
        self.parameters = parameters
        self.dropEvery = dropEvery
        mediaSSRC = parameters.remoteSSRC
        self.capture = capture
        do {
            decoder = try VP8Decoder()
        } catch {
            throw .codec(error)
        }
        if parameters.transportCCExtensionId != nil {
            feedback = TransportFeedbackGenerator(senderSSRC: parameters.localSSRC, mediaSSRC: parameters.remoteSSRC ?? 0)
        }
    }

    /// A received RTP packet of the transport, audio included (transport-wide feedback covers every packet);
    /// returns RTCP compounds to send at once (key-frame requests from the decoder).
    func received(_ packet: RTPPacket, now: NIODeadline) -> [[UInt8]] {
        let isMedia = packet.payloadType == parameters.payloadType
        if isMedia, packet.ssrc == mediaSSRC ?? packet.ssrc {
            mediaSSRC = packet.ssrc
            capture?.record(packet)
            statistics.packets += 1
            statistics.bytes += packet.payload.count
            // Discarded before anything sees it, transport-wide feedback included, as a network loss would be: a
            // sender told the packet arrived would drop it from its history and could not answer the NACK.
            if dropEvery > 0, statistics.packets % dropEvery == 0 {
                statistics.packetsDropped += 1
                statistics.droppedSequences.insert(packet.sequenceNumber)
                return []
            }
            if statistics.newestSequence.map({ (packet.sequenceNumber &- $0) & 0x8000 == 0 }) ?? true {
                statistics.newestSequence = packet.sequenceNumber
            }
        }
        recordTransportSequence(of: packet, now: now)
        guard isMedia || packet.payloadType == parameters.rtxPayloadType else { return [] }
        var media = packet
        if packet.payloadType == parameters.rtxPayloadType {
            statistics.rtxPackets += 1
            guard let ssrc = mediaSSRC,
                  let original = RTXStream.unwrap(packet, mediaSSRC: ssrc, mediaPayloadType: parameters.payloadType)
            else {
                statistics.paddingPackets += 1
                return []
            }
            media = original
            if statistics.droppedSequences.contains(original.sequenceNumber) {
                statistics.recoveredSequences.insert(original.sequenceNumber)
            }
        } else {
            guard packet.ssrc == mediaSSRC else { return [] }
            receiveStatistics.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: now)
        }
        if parameters.nack {
            nack.received(sequenceNumber: media.sequenceNumber, now: now)
            if nack.missingCount > 0, nextNack == nil { nextNack = now + Self.nackInterval }
        }
        var requests: [[UInt8]] = []
        for frame in assembler.insert(sequenceNumber: media.sequenceNumber, timestamp: media.timestamp,
                                      marker: media.marker, payload: media.payload, now: now) {
            do {
                guard let image = try decoder.decode(frame.data) else { continue }
                decoded(image, keyFrame: frame.isKeyFrame, now: now)
            } catch {
                // A lost reference or corrupt data: the decoder waits for a key frame, so ask for one.
                statistics.decodeErrors += 1
                if lastDecoderKeyFrameRequest.map({ now - $0 >= Self.decoderKeyFrameInterval }) ?? true,
                   let request = keyFrameRequest() {
                    lastDecoderKeyFrameRequest = now
                    requests.append(request)
                }
            }
        }
        return requests
    }

    /// Records the transport-wide sequence number of a packet that carries one.
    private func recordTransportSequence(of packet: RTPPacket, now: NIODeadline) {
        guard let id = parameters.transportCCExtensionId, let value = packet.extensionBytes(id: id),
              let sequence = RTPHeaderExtensionValue.transportSequenceNumber(value)
        else { return }
        feedback?.received(transportSequenceNumber: sequence, arrival: now)
    }

    /// A sender report from the other side, echoed in the next report block (for its round-trip measurement).
    func receivedSenderReport(ssrc: UInt32, ntpTimestamp: UInt64, now: NIODeadline) {
        guard ssrc == mediaSSRC else { return }
        receiveStatistics.senderReportReceived(ntpTimestamp: NTPTimestamp(ntpTimestamp), arrival: now)
    }

    /// NACKs, key-frame requests and transport-wide feedback due at `now`, as RTCP compounds.
    func tick(now: NIODeadline) -> [[UInt8]] {
        var compounds: [[UInt8]] = []
        if let due = nextNack, now >= due, let ssrc = mediaSSRC {
            let missing = nack.due(now: now, roundTrip: Self.roundTrip)
            if !missing.isEmpty {
                statistics.nacksSent += 1
                statistics.packetsNacked += missing.count
                if dropEvery > 0 { statistics.nackedSequences.formUnion(missing) }
                compounds.append(compound(.nack(senderSSRC: parameters.localSSRC, mediaSSRC: ssrc, lost: missing)))
            }
            nextNack = nack.missingCount > 0 ? now + Self.nackInterval : nil
        }
        if assembler.keyFrameRequestDue(now: now), let request = keyFrameRequest() {
            compounds.append(request)
        }
        if var generator = feedback {
            if let ssrc = mediaSSRC { generator.mediaSSRC = ssrc }
            for message in generator.poll(now: now) {
                statistics.feedbackSent += 1
                compounds.append(compound(.transportFeedback(message)))
            }
            feedback = generator
        }
        return compounds
    }

    /// The report block about the received stream, once packets arrived.
    func reportBlock(now: NIODeadline) -> RTCPPacket.ReportBlock? {
        guard let ssrc = mediaSSRC, receiveStatistics.packetsReceived > 0 else { return nil }
        return receiveStatistics.reportBlock(ssrc: ssrc, now: now)
    }

    /// Discarded packets no NACK asked for although one should have, and discarded packets given up on (neither
    /// recovered over RTX nor still awaited): not counted in either are those after the newest arrival (no later
    /// packet revealed them), and for the first those still within the NACK delay when the run ended
    /// (``NackGenerator/unrequested``). Both are 0 when NACK and RTX did their job.
    private func dropAccounting() -> (neverNacked: Int, givenUp: Int) {
        guard let newest = statistics.newestSequence else { return (0, 0) }
        let revealed = statistics.droppedSequences.filter { dropped in
            let ahead = dropped &- newest
            return ahead == 0 || ahead & 0x8000 != 0
        }
        let neverNacked = revealed.subtracting(statistics.nackedSequences).subtracting(nack.unrequested)
        let givenUp = revealed.subtracting(statistics.recoveredSequences).subtracting(nack.missingSequenceNumbers)
        return (neverNacked.count, givenUp.count)
    }

    /// The figures for the result line.
    func report() -> [String: any Sendable] {
        var figures: [String: any Sendable] = [
            "ssrc": mediaSSRC.map { Int($0) } ?? 0, "packets": statistics.packets, "bytes": statistics.bytes,
            "rtxPackets": statistics.rtxPackets, "paddingPackets": statistics.paddingPackets,
            "framesAssembled": assembler.statistics.framesAssembled, "framesSkipped": assembler.statistics.framesSkipped,
            "framesDecoded": statistics.framesDecoded, "keyFramesDecoded": statistics.keyFramesDecoded,
            "decodeErrors": statistics.decodeErrors, "width": statistics.width, "height": statistics.height,
            "countersRead": statistics.countersRead, "counterRegressions": statistics.counterRegressions,
            "counterRepeats": statistics.counterRepeats,
            "colors": statistics.colors, "keyFrameRequests": statistics.keyFrameRequests,
            "nacksSent": statistics.nacksSent, "packetsNacked": statistics.packetsNacked,
            "feedbackSent": statistics.feedbackSent, "packetsDropped": statistics.packetsDropped,
        ]
        let drops = dropAccounting()
        figures["dropsNeverNacked"] = drops.neverNacked
        figures["dropsGivenUp"] = drops.givenUp
        if let first = statistics.firstCounter, let last = statistics.lastCounter {
            figures["firstCounter"] = first
            figures["lastCounter"] = last
        }
        if let first = statistics.firstDecode, let last = statistics.lastDecode, last > first {
            let seconds = Double((last - first).nanoseconds) / 1e9
            figures["fps"] = (Double(statistics.framesDecoded - 1) / seconds * 10).rounded() / 10
        }
        if let reading = statistics.lastReading {
            figures["lastColorYUV"] = [reading.meanY, reading.meanU, reading.meanV].map { $0.rounded() }
        }
        return figures
    }

    private func decoded(_ image: I420Image, keyFrame: Bool, now: NIODeadline) {
        statistics.framesDecoded += 1
        if keyFrame { statistics.keyFramesDecoded += 1 }
        statistics.width = image.width
        statistics.height = image.height
        statistics.firstDecode = statistics.firstDecode ?? now
        statistics.lastDecode = now
        let reading = VideoPatternReading(image)
        statistics.lastReading = reading
        statistics.colors[reading.nearestColor()?.name ?? "none", default: 0] += 1
        guard let counter = reading.counter else { return }
        statistics.countersRead += 1
        if let last = statistics.lastCounter {
            // Newer in 16-bit serial arithmetic; an equal counter is a repeated picture, not a regression.
            let step = Int16(truncatingIfNeeded: counter &- last)
            if step < 0 { statistics.counterRegressions += 1 }
            if step == 0 { statistics.counterRepeats += 1 }
        }
        statistics.firstCounter = statistics.firstCounter ?? counter
        statistics.lastCounter = counter
    }

    /// A PLI (or a FIR when only that was agreed) for the received stream; nil when neither was agreed or the
    /// stream is not known yet.
    private func keyFrameRequest() -> [UInt8]? {
        guard let ssrc = mediaSSRC else { return nil }
        let request: RTCPPacket
        if parameters.pictureLoss {
            request = .pictureLossIndication(senderSSRC: parameters.localSSRC, mediaSSRC: ssrc)
        } else if parameters.fullIntra {
            firSequence &+= 1
            request = .fullIntraRequest(senderSSRC: parameters.localSSRC,
                                        entries: [.init(ssrc: ssrc, sequenceNumber: firSequence)])
        } else {
            return nil
        }
        statistics.keyFrameRequests += 1
        return compound(request)
    }

    /// Feedback in a compound led by an empty receiver report, as RFC 3550 wants (some peers drop reduced-size
    /// RTCP unless it was agreed).
    private func compound(_ packet: RTCPPacket) -> [UInt8] {
        RTCPPacket.feedbackCompound(from: parameters.localSSRC, packet)
    }
}
