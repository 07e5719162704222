import CarillonCodecs
import CarillonRTC
import NIOCore

/// The VP8 streams received on one transport (sans-IO): a client session's remote videos (the receiving half of its
/// video core) or `carillon peer`'s. Per receive m-line (``VideoReceiveTrack``), RTX unwrapped, reception statistics,
/// NACKs for gaps and ``VP8FrameAssembler`` frames in order; PLI when the assembler waits too long or a decoder needs a key frame;
/// transport-wide feedback about every video packet when negotiated (the server's downlink estimate). Only videos
/// somebody looks at are decoded (``setDecoded(_:videoId:now:)``); the others are assembled and counted, and
/// announced (``VideoStreamEffect/remoteVideoArrived``) so their tiles exist. A track that goes away ends its video.
///
/// Costs per received frame: one assembly, and for a decoded video one decode (about 1 ms at 360p) and one picture.
/// Threading: not thread-safe; one event loop owns it (the session's, or the peer's).
public final class VideoReceiveStreams {
    /// How often missing packets are looked at for a NACK.
    public static let feedbackInterval = TimeAmount.milliseconds(10)
    /// The least time between two key-frame requests for a decoder that needs one.
    public static let decoderKeyFrameInterval = TimeAmount.milliseconds(500)

    /// A receiver's counters at a metrics report.
    private struct ReceiveCounters {
        var bytes = 0
        var packets = 0
        var framesDecoded = 0
        var nacks = 0
        var plis = 0
        var block: RTCPPacket.ReportBlock?
    }

    /// One received stream's state; a class so the per-packet path mutates it in place (the assembler's buffer).
    private final class Receiver {
        var track: VideoReceiveTrack
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
        /// Whether frames are decoded (somebody looks at the video); see ``setDecoded(_:videoId:now:)``.
        var decoding = false
        /// Frames are skipped until a key frame: decoding started after the stream did.
        var awaitingKeyFrame = false
        /// An undecoded video announces its next frame (its first, or the first after a pause at the source).
        var announcePending = true
        var bytesReceived = 0
        var packetsReceived = 0
        var nacksSent = 0
        var packetsNacked = 0
        var plisSent = 0
        var keyFramesDecoded = 0
        var decodeErrors = 0
        var lastSize: (width: Int, height: Int) = (0, 0)
        var reported = ReceiveCounters()

        init(track: VideoReceiveTrack) { self.track = track }

        /// Takes over the counters and the size of `previous`, the same video on another SSRC, so its statistics
        /// and its tile continue (the stream state starts anew: the new downlink begins with a key frame).
        func continuing(_ previous: Receiver) {
            framesDecoded = previous.framesDecoded
            framesReceived = previous.framesReceived
            bytesReceived = previous.bytesReceived
            packetsReceived = previous.packetsReceived
            nacksSent = previous.nacksSent
            packetsNacked = previous.packetsNacked
            plisSent = previous.plisSent
            keyFramesDecoded = previous.keyFramesDecoded
            decodeErrors = previous.decodeErrors
            lastSize = previous.lastSize
            reported = previous.reported
            announcePending = false
        }
    }

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
    private var nextFeedback: NIODeadline?

    /// Streams that receive nothing until ``configure(_:reportSSRC:now:)``.
    public init() {}

    /// Transport-wide feedback messages sent so far.
    public private(set) var transportFeedbackSent = 0

    /// Whether no stream is received.
    public var isEmpty: Bool { receivers.isEmpty }

    /// What each received stream got so far, by video id.
    public var statistics: [Statistics] {
        receivers.map { ssrc, receiver in
            Statistics(videoId: receiver.track.videoId, attendeeId: receiver.track.attendeeId,
                       streamId: receiver.track.streamId, ssrc: ssrc, bytesReceived: receiver.bytesReceived,
                       packetsReceived: receiver.packetsReceived, framesReceived: receiver.framesReceived,
                       framesDecoded: receiver.framesDecoded, keyFramesDecoded: receiver.keyFramesDecoded,
                       decodeErrors: receiver.decodeErrors, nacksSent: receiver.nacksSent,
                       packetsNacked: receiver.packetsNacked, keyFrameRequests: receiver.plisSent,
                       width: receiver.lastSize.width, height: receiver.lastSize.height,
                       assembly: receiver.assembler.statistics)
        }.sorted { $0.videoId < $1.videoId }
    }

    /// The sequence numbers of stream `ssrc` still awaited (missing, NACKed or about to be) and, among them, those
    /// no NACK has asked for yet (still within the NACK delay); empty for an unknown stream. For accounting of
    /// deliberate loss (`carillon peer --video-drop-every`).
    public func awaitedSequenceNumbers(ssrc: UInt32) -> (missing: [UInt16], unrequested: [UInt16]) {
        guard let nack = receivers[ssrc]?.nack else { return ([], []) }
        return (nack.missingSequenceNumbers, nack.unrequested)
    }

    /// When ``tick(now:roundTrip:)`` is next due. Read after every packet, so it is folded without a list.
    public var nextDeadline: NIODeadline? {
        var earliest = nextFeedback.earlier(transportFeedback?.nextDeadline)
        for receiver in receivers.values { earliest = earliest.earlier(receiver.assembler.nextDeadline) }
        return earliest
    }

    /// Whether `ssrc` is one of the received video streams (or their RTX).
    public func receives(ssrc: UInt32) -> Bool { receivers[ssrc] != nil || rtxToMedia[ssrc] != nil }

    /// Applies a (re)negotiation: the tracks received, their feedback sent from `reportSSRC`. Tracks that went away
    /// end their video; tracks kept (same SSRC) keep their state; a video moved to another SSRC continues there.
    public func configure(_ tracks: [VideoReceiveTrack], reportSSRC: UInt32, now: NIODeadline) -> [VideoStreamEffect] {
        self.reportSSRC = reportSSRC
        var effects: [VideoStreamEffect] = []
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
                effects.append(.remoteVideoFrame(nil, timestampNanoseconds: Int64(truncatingIfNeeded: now.uptimeNanoseconds),
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
        return effects
    }

    /// The server's list of streams stopped at their sender (INDEX `paused_at_source_ids`): each received stream
    /// newly in it is reported paused; one that left it resumes with its next frame.
    public func setPausedAtSource(_ streamIds: Set<UInt32>) -> [VideoStreamEffect] {
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
    public func setDecoded(_ decoded: Bool, videoId: Int, now: NIODeadline) -> [VideoStreamEffect] {
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
        return [pictureLossRequest(ssrc)]
    }

    // MARK: Receiving

    /// A received RTP packet of one of the video tracks (after SRTP).
    public func received(rtp packet: RTPPacket, now: NIODeadline) -> [VideoStreamEffect] {
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
        var effects: [VideoStreamEffect] = []
        for frame in receiver.assembler.insert(sequenceNumber: media.sequenceNumber, timestamp: media.timestamp,
                                               marker: media.marker, payload: media.payload, now: now) {
            receiver.framesReceived += 1
            let arrival = Int64(truncatingIfNeeded: frame.firstArrival.uptimeNanoseconds)
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
                if frame.keyFrameSize != nil { receiver.keyFramesDecoded += 1 }
                receiver.lastSize = (image.width, image.height)
                effects.append(.remoteVideoFrame(image, timestampNanoseconds: arrival,
                                                 videoId: receiver.track.videoId, attendeeId: receiver.track.attendeeId))
            } catch {
                receiver.decodeErrors += 1
                receiver.needsKeyFrame = true
            }
        }
        if receiver.needsKeyFrame, receiver.lastKeyFrameRequest.map({ now - $0 >= Self.decoderKeyFrameInterval }) ?? true {
            receiver.lastKeyFrameRequest = now
            receiver.plisSent += 1
            effects.append(pictureLossRequest(ssrc))
        }
        if receiver.nack.missingCount > 0, nextFeedback == nil { nextFeedback = now + Self.feedbackInterval }
        return effects
    }

    /// The server's sender reports about received streams, echoed in the next report blocks (for its round trip).
    public func received(rtcp packets: [RTCPPacket], now: NIODeadline) {
        for case .senderReport(let ssrc, let ntp, _, _, _, _) in packets where receivers[ssrc] != nil {
            // Echoed in the next report block, so the server can measure its round trip.
            receivers[ssrc]?.statistics.senderReportReceived(ntpTimestamp: NTPTimestamp(ntp), arrival: now)
        }
    }

    /// Transport-wide feedback, NACKs (repeated once per `roundTrip`) and key-frame requests due at `now`.
    public func tick(now: NIODeadline, roundTrip: TimeAmount) -> [VideoStreamEffect] {
        var effects: [VideoStreamEffect] = []
        if let due = transportFeedback?.nextDeadline, now >= due, let messages = transportFeedback?.poll(now: now) {
            transportFeedbackSent += messages.count
            for message in messages {
                effects.append(.sendRTCP(RTCPPacket.feedbackCompound(from: reportSSRC, .transportFeedback(message))))
            }
        }
        if let due = nextFeedback, now >= due {
            var pending = false
            for ssrc in receivers.keys.sorted() {
                guard let receiver = receivers[ssrc] else { continue }
                let missing = receiver.nack.due(now: now, roundTrip: roundTrip)
                if !missing.isEmpty {
                    receiver.nacksSent += 1
                    receiver.packetsNacked += missing.count
                    let nack = RTCPPacket.nack(senderSSRC: reportSSRC, mediaSSRC: ssrc, lost: missing)
                    effects.append(.sendRTCP(RTCPPacket.feedbackCompound(from: reportSSRC, nack)))
                }
                pending = pending || receiver.nack.missingCount > 0
            }
            nextFeedback = pending ? now + Self.feedbackInterval : nil
        }
        for ssrc in receivers.keys.sorted() where receivers[ssrc]?.assembler.keyFrameRequestDue(now: now) == true {
            receivers[ssrc]?.lastKeyFrameRequest = now
            receivers[ssrc]?.plisSent += 1
            effects.append(pictureLossRequest(ssrc))
        }
        return effects
    }

    /// A PLI for received stream `ssrc`, in its feedback compound.
    private func pictureLossRequest(_ ssrc: UInt32) -> VideoStreamEffect {
        .sendRTCP(RTCPPacket.feedbackCompound(from: reportSSRC,
                                              .pictureLossIndication(senderSSRC: reportSSRC, mediaSSRC: ssrc)))
    }

    /// The report block about every received stream, by SSRC.
    public func reportBlocks(now: NIODeadline) -> [UInt32: RTCPPacket.ReportBlock] {
        var blocks: [UInt32: RTCPPacket.ReportBlock] = [:]
        for ssrc in receivers.keys.sorted() {
            if let block = receivers[ssrc]?.statistics.reportBlock(ssrc: ssrc, now: now) { blocks[ssrc] = block }
        }
        return blocks
    }

    /// The receive metrics of the last `seconds` (since the previous call) with the report `blocks` just made, and
    /// the counters for the next.
    public func measure(_ blocks: [UInt32: RTCPPacket.ReportBlock], seconds: Double) -> [VideoReceiveMetrics] {
        var receive: [VideoReceiveMetrics] = []
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
            receive.append(VideoReceiveMetrics(
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
        return receive
    }
}
