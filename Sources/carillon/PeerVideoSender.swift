import CarillonCodecs
import CarillonMedia
import CarillonRTC
import NIOCore

/// The sending half of `carillon peer --video`, sans-IO: a moving ``VideoTestPattern`` (its frame counter is the
/// picture number) encoded with VP8 at a fixed bitrate, packetised (RFC 7741) and kept for retransmission. PLI and
/// FIR make the next picture a key frame; NACKs are answered from the send history, over RTX when it was agreed.
///
/// No congestion control: the peer is for interop checks on loopback, where a fixed rate is what a test wants.
/// Threading: not thread-safe; the peer's event loop owns it.
final class PeerVideoSender {
    /// What was sent and asked for so far.
    struct Statistics: Sendable {
        var framesSent = 0
        var keyFramesSent = 0
        var packetsSent = 0
        var bytesSent = 0
        /// Pictures rate control chose not to encode.
        var framesDropped = 0
        /// Pictures not even made because the loop ran late (the pattern skips ahead instead of bursting).
        var framesSkipped = 0
        var pictureLossReceived = 0
        var fullIntraReceived = 0
        var packetsNacked = 0
        var retransmissions = 0
        /// Packets left out on purpose (``dropEvery``), as if the network lost them.
        var packetsDropped = 0
    }

    let parameters: PeerVideoParameters
    let pattern: VideoTestPattern
    let frameRate: Int
    /// Every this many packets one is kept in the history but not sent (0: none), so the receiver's NACKs and the
    /// RTX answers run as they would on a lossy network.
    let dropEvery: Int
    private(set) var statistics = Statistics()

    private let encoder: VP8Encoder
    private var packetizer = VP8Packetizer()
    private var history = RTPSendHistory(capacity: 1_024)
    private var rtx: RTXStream?
    private var sequenceNumber = UInt16.random(in: .min ... .max)
    private let firstTimestamp = UInt32.random(in: .min ... .max)
    private var start: NIODeadline?
    private var pictureNumber = 0
    private var keyFrameRequested = false
    private var lastTimestamp: UInt32?
    private var lastPictureSent: Int?

    /// Creates a sender of `width`x`height` pictures at `frameRate` and `bitrate` bit/s in `color`, leaving out
    /// every `dropEvery`th packet (0: none).
    init(parameters: PeerVideoParameters, width: Int, height: Int, frameRate: Int, bitrate: Int,
         color: VideoTestPattern.Color, dropEvery: Int = 0) throws(PeerVideoError) {
        self.parameters = parameters
        self.frameRate = frameRate
        self.dropEvery = dropEvery
        do {
            pattern = try VideoTestPattern(width: width, height: height, color: color)
        } catch {
            throw .pattern(error)
        }
        do {
            encoder = try VP8Encoder(configuration: .init(width: width, height: height, bitrate: bitrate,
                                                          maxFrameRate: frameRate))
        } catch {
            throw .codec(error)
        }
        if let rtxType = parameters.rtxPayloadType {
            rtx = RTXStream(ssrc: parameters.localRTXSSRC, payloadTypes: [parameters.payloadType: rtxType])
        }
    }

    /// When the next picture is due; nil before ``start(now:)``.
    var nextPicture: NIODeadline? {
        start.map { $0 + .nanoseconds(Int64(pictureNumber) * 1_000_000_000 / Int64(frameRate)) }
    }

    /// Starts the picture clock: the first picture is due at once.
    func start(now: NIODeadline) {
        start = now
    }

    /// The RTP packets of the picture due at `now`, if one is. A loop that ran late skips the pictures it missed
    /// (their numbers too), so the stream keeps its pace and timestamps instead of bursting.
    func packetsDue(now: NIODeadline) -> [[UInt8]] {
        guard let start, let due = nextPicture, now >= due else { return [] }
        let elapsed = (now - start).nanoseconds
        let current = Int(elapsed * Int64(frameRate) / 1_000_000_000)
        statistics.framesSkipped += max(0, current - pictureNumber)
        pictureNumber = max(pictureNumber, current)
        defer { pictureNumber += 1 }
        let timestamp = firstTimestamp &+ UInt32(truncatingIfNeeded: pictureNumber * 90_000 / frameRate)
        let image = pattern.image(frame: pictureNumber)
        let encoded: EncodedVideoFrame?
        do {
            encoded = try encoder.encode(image, timestamp: timestamp, forceKeyframe: keyFrameRequested)
        } catch {
            // A frame libvpx refused is a dropped frame; the next one tries again.
            statistics.framesDropped += 1
            return []
        }
        guard let encoded else {
            statistics.framesDropped += 1
            return []
        }
        if encoded.isKeyframe {
            keyFrameRequested = false
            statistics.keyFramesSent += 1
        }
        statistics.framesSent += 1
        lastTimestamp = timestamp
        lastPictureSent = pictureNumber
        let payloads = packetizer.payloads(for: encoded.bytes[...])
        var packets: [[UInt8]] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            let packet = RTPPacket(marker: index == payloads.count - 1, payloadType: parameters.payloadType,
                                   sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: parameters.localSSRC,
                                   payload: payload[...]).serialized()
            history.store(sequenceNumber: sequenceNumber, packet: packet, now: now)
            sequenceNumber &+= 1
            statistics.packetsSent += 1
            statistics.bytesSent += payload.count
            if dropEvery > 0, statistics.packetsSent % dropEvery == 0 {
                statistics.packetsDropped += 1
                continue
            }
            packets.append(packet)
        }
        return packets
    }

    /// Feedback about the sent stream: PLI and FIR ask for a key frame, NACKs return the retransmissions to send.
    func received(rtcp packets: [RTCPPacket], now: NIODeadline) -> [[UInt8]] {
        let ssrc = parameters.localSSRC
        var repairs: [[UInt8]] = []
        for packet in packets {
            switch packet {
            case .pictureLossIndication(_, ssrc):
                statistics.pictureLossReceived += 1
                keyFrameRequested = true
            case .fullIntraRequest(_, let entries) where entries.contains(where: { $0.ssrc == ssrc }):
                statistics.fullIntraReceived += 1
                keyFrameRequested = true
            case .nack(_, ssrc, let lost):
                statistics.packetsNacked += lost.count
                for sequence in lost {
                    guard let original = history.packet(sequenceNumber: sequence, now: now) else { continue }
                    // Without RTX the original goes again as it was (RFC 4585 allows either).
                    guard let repair = rtx != nil ? rtx?.wrap(original) : original else { continue }
                    statistics.retransmissions += 1
                    repairs.append(repair)
                }
            default:
                break
            }
        }
        return repairs
    }

    /// A sender report for the stream at `now` carrying `blocks`, once a picture went out.
    func senderReport(now: NIODeadline, blocks: [RTCPPacket.ReportBlock]) -> RTCPPacket? {
        guard let start, lastTimestamp != nil else { return nil }
        // The RTP time of `now` on the picture clock, so the receiver can map it to the NTP time.
        let elapsed = (now - start).nanoseconds
        let rtpTime = firstTimestamp &+ UInt32(truncatingIfNeeded: elapsed * 9 / 100_000)
        return .senderReport(ssrc: parameters.localSSRC, ntpTimestamp: NTPTimestamp.now().value, rtpTimestamp: rtpTime,
                             packetCount: UInt32(truncatingIfNeeded: statistics.packetsSent),
                             octetCount: UInt32(truncatingIfNeeded: statistics.bytesSent), reports: blocks)
    }

    /// The figures for the result line.
    func report() -> [String: any Sendable] {
        [
            "ssrc": Int(parameters.localSSRC), "width": pattern.width, "height": pattern.height,
            "frameRate": frameRate, "color": pattern.color.name, "bitrate": encoder.configuration.bitrate,
            "frames": statistics.framesSent, "keyFrames": statistics.keyFramesSent,
            "packets": statistics.packetsSent, "bytes": statistics.bytesSent,
            "framesDropped": statistics.framesDropped, "framesSkipped": statistics.framesSkipped,
            "pliReceived": statistics.pictureLossReceived, "firReceived": statistics.fullIntraReceived,
            "packetsNacked": statistics.packetsNacked, "retransmissions": statistics.retransmissions,
            "packetsDropped": statistics.packetsDropped,
            // The pattern's counter shows the picture number modulo 65536.
            "lastCounter": lastPictureSent.map { $0 & 0xFFFF } ?? -1,
        ]
    }
}
