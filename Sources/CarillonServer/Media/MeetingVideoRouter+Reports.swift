import CarillonRTC
import NIOCore

/// The timers: uplink NACKs and feedback, periodic key frames, stalled sources, the reports and REMB once a second.
extension MeetingVideoRouter {
    // MARK: Timers

    /// NACKs and transport-wide feedback for the uplinks, and once a second the reports and REMBs.
    mutating func tick(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        if let due = nextFeedback, now >= due {
            var pending = false
            for id in members.keys.sorted() {
                guard let member = members[id], member.connected, let uplink = member.uplink else { continue }
                for layer in uplink.layers {
                    guard let ssrc = layer.ssrc else { continue }
                    let missing = layer.nack.due(now: now, roundTrip: member.roundTrip ?? Self.defaultRoundTrip)
                    if !missing.isEmpty, uplink.negotiated.feedback.contains("nack") {
                        outputs.append(.rtcp(id, RTCPPacket.feedbackCompound(from: member.reportSSRC,
                                                               .nack(senderSSRC: member.reportSSRC, mediaSSRC: ssrc, lost: missing))))
                    }
                    pending = pending || layer.nack.missingCount > 0
                }
                if let feedback = uplink.transportFeedback?.poll(now: now), !feedback.isEmpty {
                    for message in feedback {
                        outputs.append(.rtcp(id, RTCPPacket.feedbackCompound(from: member.reportSSRC, .transportFeedback(message))))
                    }
                }
                pending = pending || (uplink.transportFeedback?.pendingPackets ?? 0) > 0
            }
            nextFeedback = pending ? now + Self.feedbackInterval : nil
        }
        for id in members.keys.sorted() {
            if let control = members[id]?.control, let due = control.sender.pacer.nextDeadline, due <= now {
                pace(id, control, into: &outputs, now: now)
            }
            sendProbePadding(id, into: &outputs, now: now)
        }
        for id in members.keys.sorted() {
            for (index, layer) in (members[id]?.uplink?.layers ?? []).enumerated() {
                guard layer.keyFrameRequestDeferred, let last = layer.lastKeyFrameRequest,
                      now >= last + Self.keyFrameRequestInterval else { continue }
                outputs += requestKeyFrame(from: id, layer: index, now: now)
            }
        }
        if let due = nextReports, now >= due {
            nextReports = due.nextOnGrid(period: Self.reportInterval, after: now)
            measureLayers()
            let rates = members.keys.sorted().flatMap { layerBitrates(of: $0) }
            if !rates.isEmpty { outputs.append(.videoBitrates(rates)) }
            outputs += reports(now: now)
            outputs += stalledSources(now: now)
            outputs += periodicKeyFrames(now: now)
            outputs += allocateDownlinks(now: now)
        }
        return outputs
    }

    /// Key-frame requests to the connected uplinks that ask for them periodically (content shares) and had none for
    /// their interval (checked with the reports, so within a second of it).
    mutating func periodicKeyFrames(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        for id in members.keys.sorted() {
            guard let member = members[id], member.connected, let uplink = member.uplink,
                  let interval = uplink.negotiated.keyFrameInterval else { continue }
            for (index, layer) in uplink.layers.enumerated() where layer.packetsReceived > 0 {
                guard let last = layer.lastKeyFrameRequest else {
                    // A sender starts with a key frame unasked: the interval counts from its first report.
                    layer.lastKeyFrameRequest = now
                    continue
                }
                if now - last >= interval { outputs += requestKeyFrame(from: id, layer: index, now: now) }
            }
        }
        return outputs
    }

    /// Connected cameras that have sent nothing for ``sourceStallTimeout``, newly reported paused at their source.
    func stalledSources(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        for id in members.keys.sorted() {
            guard let member = members[id], member.connected, let uplink = member.uplink, !uplink.pausedAtSource,
                  let last = uplink.lastPacketAt, now - last >= Self.sourceStallTimeout else { continue }
            uplink.pausedAtSource = true
            outputs.append(.videoSourcePaused(id, paused: true))
        }
        return outputs
    }

    /// A receiver report about each uplink, a sender report for each downlink that has sent, and REMB to
    /// publishers that only understand REMB.
    mutating func reports(now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        for id in members.keys.sorted() {
            guard let member = members[id], member.connected else { continue }
            var packets: [RTCPPacket] = []
            var blocks: [RTCPPacket.ReportBlock] = []
            for layer in member.uplink?.layers ?? [] {
                if let ssrc = layer.ssrc, let block = layer.statistics?.reportBlock(ssrc: ssrc, now: now) { blocks.append(block) }
            }
            if !blocks.isEmpty { packets.append(.receiverReport(ssrc: member.reportSSRC, reports: blocks)) }
            for index in member.downlinks.indices {
                let downlink = member.downlinks[index]
                guard let lastTimestamp = downlink.lastTimestamp, let lastSentAt = downlink.lastSentAt else { continue }
                // The RTP time that corresponds to now on the downlink's 90 kHz clock.
                let elapsed = UInt32(truncatingIfNeeded: (now - lastSentAt).nanoseconds * 90 / 1_000_000)
                packets.append(.senderReport(ssrc: downlink.negotiated.ssrc,
                                             ntpTimestamp: Self.ntp(now).value,
                                             rtpTimestamp: lastTimestamp &+ elapsed, packetCount: downlink.packetsSent,
                                             octetCount: downlink.octetsSent, reports: []))
            }
            // A simulcast sender is not held to its slowest receiver: each receiver gets the layer it can take.
            if let uplink = member.uplink, uplink.layers.count == 1, let ssrc = uplink.ssrc,
               uplink.negotiated.feedback.contains("goog-remb"),
               let estimate = remoteEstimate(for: id) {
                packets.append(.receiverEstimatedMaximumBitrate(senderSSRC: member.reportSSRC, bitrate: estimate,
                                                                ssrcs: [ssrc]))
            }
            guard !packets.isEmpty else { continue }
            switch packets[0] {
            case .receiverReport, .senderReport: break
            default: packets.insert(.receiverReport(ssrc: member.reportSSRC, reports: []), at: 0)
            }
            packets.append(.sourceDescription(chunks: [.init(ssrc: member.reportSSRC, items: [.cname("carillon")])]))
            outputs.append(.rtcp(id, packets.flatMap { $0.serialized() }))
        }
        return outputs
    }

    /// Each uplink layer's bitrate over the last report interval.
    func measureLayers() {
        let seconds = Double(Self.reportInterval.nanoseconds) / 1e9
        for member in members.values {
            for layer in member.uplink?.layers ?? [] {
                layer.bitrate = Int(Double(layer.octetsSinceMeasurement * 8) / seconds)
                layer.octetsSinceMeasurement = 0
            }
        }
    }

    /// The measured bitrate (bits per second) of every layer of a session's camera, by stream id: for BITRATES and
    /// INDEX `avg_bitrate_bps`. Empty when it sends no video or the layers' stream ids are not known.
    func layerBitrates(of id: SignalingConnectionID) -> [(streamId: UInt32, bitrate: Int)] {
        (members[id]?.uplink?.layers ?? []).compactMap { layer in
            guard layer.description.streamId != 0, let bitrate = layer.bitrate else { return nil }
            return (layer.description.streamId, bitrate)
        }
    }

    /// What the slowest of a publisher's receivers can take of its stream, floored: the smallest of their REMBs
    /// and of their estimates per stream; nil when none has one.
    func remoteEstimate(for publisher: SignalingConnectionID) -> UInt64? {
        var estimates: [UInt64] = []
        for (receiver, index) in routes[publisher] ?? [] {
            guard let member = members[receiver], member.connected, !member.downlinks[index].isPaused else { continue }
            if let reported = member.downlinks[index].remoteEstimate { estimates.append(reported) }
            if let allocated = member.downlinks[index].allocatedBitrate {
                estimates.append(allocated)
            } else if let share = member.estimatePerStream {
                estimates.append(share)
            }
        }
        return estimates.min().map { max($0, Self.minimumRemoteEstimate) }
    }

    /// The route table, in a fixed order (receivers by id) so that forwarding order does not depend on hashing.
    mutating func rebuildRoutes() {
        routes = [:]
        for receiver in members.keys.sorted() {
            guard let member = members[receiver] else { continue }
            for (index, downlink) in member.downlinks.enumerated() {
                routes[downlink.negotiated.source.publisher, default: []].append((receiver, index))
            }
        }
    }
}
