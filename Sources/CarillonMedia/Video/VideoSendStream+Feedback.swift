import CarillonRTC
import NIOCore

/// Feedback and reports of a ``VideoSendStream``: what the other side's RTCP asks of the stream, its sender reports
/// and the second's metrics.
extension VideoSendStream {
    /// RTCP from the other side (the server, for a session) about the stream: PLI, FIR, NACK, transport-wide feedback,
    /// REMB and report blocks; returns what the pacer lets go after it.
    public func received(rtcp packets: [RTCPPacket], now: NIODeadline) -> [VideoStreamEffect] {
        guard let sender else { return [] }
        var effects: [VideoStreamEffect] = []
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
                sender.packetsNacked += lost.count
                for sequence in lost {
                    guard let original = layer.history.packet(sequenceNumber: sequence, now: now),
                          let repair = repair(original, layer: layer, sender: sender) else { continue }
                    sender.retransmissionsQueued += 1
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
    public func tick(now: NIODeadline) -> [VideoStreamEffect] { pace(now: now) + probePadding(now: now) }

    /// One sender report per layer that sent, all on the pictures' shared timestamp (the server aligns layers with
    /// them when it switches a receiver between layers).
    public func senderReports(now: NIODeadline) -> [RTCPPacket] {
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

    /// This stream's sender reports, a receiver report from `reportSSRC` with `blocks` (about received streams, by
    /// SSRC, as ``VideoReceiveStreams/reportBlocks(now:)`` gives them; in SSRC order) and the CNAME (of the sent
    /// stream, else of `reportSSRC`), in one compound; nil when there is nothing to report.
    public func reportCompound(blocks: [UInt32: RTCPPacket.ReportBlock], reportSSRC: UInt32,
                               now: NIODeadline) -> [UInt8]? {
        var packets = senderReports(now: now)
        if !blocks.isEmpty {
            packets.append(.receiverReport(ssrc: reportSSRC, reports: blocks.keys.sorted().compactMap { blocks[$0] }))
        }
        guard !packets.isEmpty else { return nil }
        packets.append(.sourceDescription(chunks: [.init(ssrc: configuration?.ssrc ?? reportSSRC,
                                                         items: [.cname(configuration?.cname ?? "carillon")])]))
        return packets.flatMap { $0.serialized() }
    }

    /// The send metrics of the last `seconds` (since the previous call), and the counters for the next.
    public func measure(seconds: Double, roundTrip: TimeAmount) -> VideoSendMetrics? {
        var send: VideoSendMetrics?
        if let sender {
            let before = sender.reported
            let packetsSent = sender.layers.reduce(UInt32(0)) { $0 &+ $1.packetsSent }
            let octetsSent = sender.layers.reduce(UInt32(0)) { $0 &+ $1.octetsSent }
            // The largest layer sent stands for the camera; loss and jitter of the lowest.
            let top = sender.layers.last { $0.allocated > 0 } ?? sender.layers[0]
            let lastReport = (sender.layers.first { $0.allocated > 0 } ?? sender.layers[0]).lastReport
            send = VideoSendMetrics(
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
