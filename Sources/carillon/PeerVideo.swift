import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// The video of `carillon peer --video` on the socket's event loop: the SDK's own streams (``VideoSendStream`` sends
/// the moving ``VideoTestPattern``, ``VideoReceiveStreams`` receives the other side's), so the interop tests against
/// Chromium and aiortc exercise the product's pipelines, not a copy. This type adds only what a peer needs around
/// them: the picture clock (the pattern's frame counter is the picture number), the SSRCs learnt from the first
/// packets when the other side did not announce them, the reports once a second, the deliberate loss
/// (``PeerVideoLoss``) and the reading of decoded pictures (``PeerVideoReadings``). One ``DeadlineTimer`` follows the
/// earliest of the streams' deadlines, the next picture and the next report.
///
/// Threading: created and used on ``eventLoop`` (the connection's), which is what lets the parts be plain classes;
/// `@unchecked Sendable` only so its timer can reach it (the loop is the lock).
final class PeerVideo: @unchecked Sendable {
    /// The CNAME of the peer's reports.
    static let cname = "carillon"
    static let reportInterval = TimeAmount.seconds(1)
    /// The round trip NACKs are repeated after (loopback plus the other side's scheduling).
    static let roundTrip = TimeAmount.milliseconds(50)

    let eventLoop: any EventLoop
    let parameters: PeerVideoParameters
    private let socket: PeerConnectionSocket
    private let sending = VideoSendStream()
    private let receiving = VideoReceiveStreams()
    private let pattern: VideoTestPattern
    private let frameRate: Int
    private let bitrate: Int
    private var loss: PeerVideoLoss
    private var readings = PeerVideoReadings()
    private(set) var capture: VideoPacketCapture?
    private lazy var timer = DeadlineTimer(eventLoop: eventLoop) { [weak self] in
        guard let self else { return }
        self.step(now: self.eventLoop.now)
    }
    /// Between ``start(now:)`` and ``stop()``.
    private var running = false
    /// The picture clock: started on connection; pictures the loop was too late for are skipped, not burst.
    private var start: NIODeadline?
    private var pictureNumber = 0
    private var picturesSkipped = 0
    private var lastPictureSent: Int?
    private var nextReport: NIODeadline?
    private var reportsSent = 0
    /// The received stream's SSRCs, once known.
    private var remoteSSRC: UInt32?
    private var remoteRTXSSRC: UInt32?
    /// VP8 packets of the received stream (before any deliberate loss), RTX packets, and RTX packets without media.
    private var packetsReceived = 0
    private var bytesReceived = 0
    private var rtxPackets = 0
    private var paddingPackets = 0

    /// The video of a negotiated m-line on `socket`'s loop (call it there): the pattern `width`x`height` in `color`
    /// at `frameRate` pictures a second capped at `bitrate` bit/s when this side sends, one packet in `dropEvery`
    /// left out each way (0: none), the first received packets kept in `capture`. It starts with ``start(now:)``
    /// once the connection is up.
    init(parameters: PeerVideoParameters, socket: PeerConnectionSocket, width: Int, height: Int, frameRate: Int,
         bitrate: Int, color: VideoTestPattern.Color, dropEvery: Int,
         capture: VideoPacketCapture?) throws(PeerVideoError) {
        eventLoop = socket.eventLoop
        eventLoop.preconditionInEventLoop()
        self.parameters = parameters
        self.socket = socket
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.capture = capture
        loss = PeerVideoLoss(every: dropEvery)
        do {
            pattern = try VideoTestPattern(width: width, height: height, color: color)
        } catch {
            throw .pattern(error)
        }
        remoteSSRC = parameters.remoteSSRC
        remoteRTXSSRC = parameters.remoteRTXSSRC
    }

    /// Starts the streams, the picture clock and the reports.
    func start(now: NIODeadline) {
        eventLoop.preconditionInEventLoop()
        guard start == nil else { return }
        start = now
        running = true
        nextReport = now + Self.reportInterval
        sending.configure(parameters.sendConfiguration(bitrate: bitrate))
        configureReceiving(now: now)
        step(now: now)
    }

    /// Stops the timer; nothing more is sent.
    func stop() {
        eventLoop.preconditionInEventLoop()
        running = false
        timer.cancel()
    }

    /// A received RTP packet. Audio goes to the receive streams too: transport-wide feedback covers every packet of
    /// the transport that carries a transport-wide number.
    func received(rtp packet: RTPPacket, now: NIODeadline) {
        guard running, parameters.receives else { return }
        if packet.payloadType == parameters.payloadType {
            if remoteSSRC == nil {
                remoteSSRC = packet.ssrc
                configureReceiving(now: now)
            }
            if packet.ssrc == remoteSSRC {
                capture?.record(packet)
                packetsReceived += 1
                bytesReceived += packet.payload.count
                if loss.dropsIncoming(packet) { return }
            }
        } else if packet.payloadType == parameters.rtxPayloadType, let mediaSSRC = remoteSSRC {
            if remoteRTXSSRC == nil {
                remoteRTXSSRC = packet.ssrc
                configureReceiving(now: now)
            }
            rtxPackets += 1
            if let original = RTXStream.unwrap(packet, mediaSSRC: mediaSSRC, mediaPayloadType: parameters.payloadType) {
                loss.repaired(original.sequenceNumber)
            } else {
                paddingPackets += 1
            }
        }
        perform(receiving.received(rtp: packet, now: now), now: now)
        timer.follow(nextDeadline)
    }

    /// A received RTCP compound: feedback for the send stream, sender reports for the receive streams.
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) {
        guard running else { return }
        receiving.received(rtcp: packets, now: now)
        perform(sending.received(rtcp: packets, now: now), now: now)
        timer.follow(nextDeadline)
    }

    /// The figures for the result line.
    func report() -> [String: any Sendable] {
        var figures: [String: any Sendable] = ["reportsSent": reportsSent]
        if parameters.sends { figures["sent"] = sentFigures() }
        if parameters.receives { figures["received"] = receivedFigures() }
        return figures
    }

    // MARK: The step

    private var nextPicture: NIODeadline? {
        guard sending.isSending, let start else { return nil }
        return start + .nanoseconds(Int64(pictureNumber) * 1_000_000_000 / Int64(frameRate))
    }

    private var nextDeadline: NIODeadline? {
        guard running else { return nil }
        return nextPicture.earlier(sending.nextDeadline).earlier(receiving.nextDeadline).earlier(nextReport)
    }

    private func step(now: NIODeadline) {
        guard running else { return }
        sendPictureIfDue(now: now)
        perform(sending.tick(now: now), now: now)
        perform(receiving.tick(now: now, roundTrip: Self.roundTrip), now: now)
        if let due = nextReport, now >= due {
            nextReport = due.nextOnGrid(period: Self.reportInterval, after: now)
            if let compound = sending.reportCompound(blocks: receiving.reportBlocks(now: now),
                                                     reportSSRC: parameters.localSSRC, now: now) {
                reportsSent += 1
                socket.sendRTCP(compound)
            }
        }
        timer.follow(nextDeadline)
    }

    /// The picture due at `now`, if one is, to the send stream; a loop that ran late skips the pictures it missed
    /// (their numbers too), so the stream keeps its pace and timestamps instead of bursting.
    private func sendPictureIfDue(now: NIODeadline) {
        guard let start, let due = nextPicture, now >= due else { return }
        let current = Int((now - start).nanoseconds * Int64(frameRate) / 1_000_000_000)
        picturesSkipped += max(0, current - pictureNumber)
        pictureNumber = max(pictureNumber, current)
        defer { pictureNumber += 1 }
        let encodedBefore = sending.statistics.framesEncoded
        let captured = Int64(pictureNumber) * 1_000_000_000 / Int64(frameRate)
        perform(sending.send(pattern.image(frame: pictureNumber), timestampNanoseconds: captured, now: now), now: now)
        if sending.statistics.framesEncoded > encodedBefore { lastPictureSent = pictureNumber }
    }

    private func configureReceiving(now: NIODeadline) {
        guard parameters.receives, let ssrc = remoteSSRC else { return }
        let track = parameters.receiveTrack(ssrc: ssrc, rtxSSRC: remoteRTXSSRC)
        perform(receiving.configure([track], reportSSRC: parameters.localSSRC, now: now), now: now)
        perform(receiving.setDecoded(true, videoId: track.videoId, now: now), now: now)
    }

    private func perform(_ effects: [VideoStreamEffect], now: NIODeadline) {
        for effect in effects {
            switch effect {
            case .sendRTP(let bytes):
                if loss.dropsOutgoing(bytes, mediaPayloadType: parameters.payloadType) { continue }
                socket.sendRTP(bytes)
            case .sendRTCP(let compound):
                loss.sentFeedback(compound)
                socket.sendRTCP(compound)
            case .remoteVideoFrame(let image?, _, _, _):
                readings.read(image, now: now)
            case .remoteVideoFrame(nil, _, _, _), .remoteVideoArrived, .remoteVideoPausedAtSource:
                break
            }
        }
    }

    // MARK: Figures

    private func sentFigures() -> [String: any Sendable] {
        let statistics = sending.statistics
        return [
            "ssrc": Int(parameters.localSSRC), "width": pattern.width, "height": pattern.height,
            "frameRate": frameRate, "color": pattern.color.name, "bitrate": bitrate,
            "targetBitrate": sending.targetBitrate ?? 0,
            "frames": statistics.framesEncoded, "keyFrames": statistics.keyFramesEncoded,
            "packets": statistics.packetsSent, "bytes": statistics.bytesSent,
            "framesDropped": statistics.framesDropped, "framesSkipped": picturesSkipped,
            "pliReceived": statistics.plisReceived, "firReceived": statistics.firsReceived,
            "packetsNacked": statistics.packetsNacked, "retransmissions": statistics.retransmissionsQueued,
            "packetsDropped": loss.sentDropped,
            // The pattern's counter shows the picture number modulo 65536.
            "lastCounter": lastPictureSent.map { $0 & 0xFFFF } ?? -1,
        ]
    }

    private func receivedFigures() -> [String: any Sendable] {
        let stream = receiving.statistics.first
        let awaited = receiving.awaitedSequenceNumbers(ssrc: remoteSSRC ?? 0)
        let drops = loss.accounting(missing: awaited.missing, unrequested: awaited.unrequested)
        var figures: [String: any Sendable] = [
            "ssrc": remoteSSRC.map { Int($0) } ?? 0, "packets": packetsReceived, "bytes": bytesReceived,
            "rtxPackets": rtxPackets, "paddingPackets": paddingPackets,
            "framesAssembled": stream?.assembly.framesAssembled ?? 0,
            "framesSkipped": stream?.assembly.framesSkipped ?? 0,
            "framesDecoded": stream?.framesDecoded ?? 0, "keyFramesDecoded": stream?.keyFramesDecoded ?? 0,
            "decodeErrors": stream?.decodeErrors ?? 0, "width": stream?.width ?? 0, "height": stream?.height ?? 0,
            "keyFrameRequests": stream?.keyFrameRequests ?? 0, "nacksSent": stream?.nacksSent ?? 0,
            "packetsNacked": stream?.packetsNacked ?? 0, "feedbackSent": receiving.transportFeedbackSent,
            "packetsDropped": loss.receivedDropped, "dropsNeverNacked": drops.neverNacked,
            "dropsGivenUp": drops.givenUp,
        ]
        figures.merge(readings.figures) { _, reading in reading }
        return figures
    }
}
