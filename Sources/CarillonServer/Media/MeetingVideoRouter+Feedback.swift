import CarillonRTC
import NIOCore

/// The RTCP path: receivers' feedback about their downlinks (PLI, FIR, NACK, transport-wide feedback, REMB, reports)
/// and the key-frame requests it becomes at publishers.
extension MeetingVideoRouter {
    // MARK: RTCP

    /// Takes the RTCP packets of one compound from a session: its feedback about what it receives (PLI, FIR, NACK,
    /// REMB) and its sender reports about what it sends.
    mutating func receive(_ packets: [RTCPPacket], from id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let member = members[id], member.connected else { return [] }
        var outputs: [MeetingMediaOutput] = []
        var keyFramesFor: [Int] = []
        for packet in packets {
            switch packet {
            case .pictureLossIndication(_, let mediaSSRC):
                if let index = downlinkIndex(of: member, ssrc: mediaSSRC) { keyFramesFor.append(index) }
            case .fullIntraRequest(_, let entries):
                for entry in entries {
                    if let index = downlinkIndex(of: member, ssrc: entry.ssrc) { keyFramesFor.append(index) }
                }
            case .nack(_, let mediaSSRC, let lost):
                guard let index = downlinkIndex(of: member, ssrc: mediaSSRC) else { continue }
                for sequence in lost {
                    guard let original = members[id]?.downlinks[index].history.packet(sequenceNumber: sequence, now: now)
                    else { continue }
                    let repair = members[id]?.downlinks[index].rtx != nil
                        ? members[id]?.downlinks[index].rtx?.wrap(original) : original
                    if let repair {
                        send(repair, priority: .retransmission, to: id, into: &outputs, now: now)
                        members[id]?.downlinks[index].retransmissions += 1
                    }
                }
            case .receiverEstimatedMaximumBitrate(_, let bitrate, let ssrcs):
                for ssrc in ssrcs {
                    if let index = downlinkIndex(of: member, ssrc: ssrc) {
                        members[id]?.downlinks[index].remoteEstimate = bitrate
                    }
                }
            case .transportFeedback(let feedback):
                guard let control = member.control else { continue }
                control.sender.transportFeedbackReceived(feedback, now: now)
                if control.sender.estimator.packetsReportedLost > control.packetsLostSeen {
                    control.packetsLostSeen = control.sender.estimator.packetsReportedLost
                    control.lastLossAt = now
                }
                control.sender.setRate(targetBitrate: member.pacingTarget)
                // A falling estimate lowers layers at once, not at the next report.
                outputs += allocateIfEstimateFell(id, now: now)
            case .senderReport(let ssrc, let ntp, let rtp, _, _, let blocks):
                if let layer = member.uplink?.layers.first(where: { $0.ssrc == ssrc }) {
                    layer.statistics?.senderReportReceived(ntpTimestamp: NTPTimestamp(ntp), arrival: now)
                    layer.senderReport = (NTPTimestamp(ntp), rtp)
                }
                measureRoundTrip(blocks, of: id, now: now)
                downlinkLoss(blocks, of: member, now: now)
            case .receiverReport(_, let blocks):
                measureRoundTrip(blocks, of: id, now: now)
                downlinkLoss(blocks, of: member, now: now)
            default:
                break
            }
        }
        for index in keyFramesFor { outputs += requestKeyFrame(for: member.downlinks[index], now: now) }
        return outputs
    }

    /// The loss a session reports about its downlinks, for its estimate (the worst stream counts).
    func downlinkLoss(_ blocks: [RTCPPacket.ReportBlock], of member: Member, now: NIODeadline) {
        guard let control = member.control else { return }
        let worst = blocks.filter { block in member.downlinks.contains { $0.negotiated.ssrc == block.ssrc } }
            .map(\.fractionLost).max()
        guard let worst else { return }
        control.sender.receiverReportReceived(fractionLost: worst, now: now)
        control.sender.setRate(targetBitrate: member.pacingTarget)
    }

    /// The round trip from report blocks about a session's downlinks: they echo this router's sender reports.
    mutating func measureRoundTrip(_ blocks: [RTCPPacket.ReportBlock], of id: SignalingConnectionID, now: NIODeadline) {
        guard let member = members[id] else { return }
        for block in blocks where downlinkIndex(of: member, ssrc: block.ssrc) != nil {
            if let roundTrip = block.roundTripTime(arrival: Self.ntp(now)) { members[id]?.roundTrip = roundTrip }
        }
    }

    /// This router's NTP time: the monotonic clock (sender reports only need one clock per router, echoed back).
    static func ntp(_ now: NIODeadline) -> NTPTimestamp { NTPTimestamp(unixNanoseconds: UInt64(now.uptimeNanoseconds)) }

    func downlinkIndex(of member: Member, ssrc: UInt32) -> Int? {
        member.downlinks.firstIndex { $0.negotiated.ssrc == ssrc || $0.negotiated.rtxSSRC == ssrc }
    }

    /// Key-frame requests for every layer of a publisher (a source the allocation resumes: its receivers may carry
    /// any layer), each throttled as below.
    func requestKeyFrame(from publisher: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        let layers = members[publisher]?.uplink?.layers.count ?? 0
        return (0..<layers).flatMap { requestKeyFrame(from: publisher, layer: $0, now: now) }
    }

    /// A key-frame request for the layer a downlink waits for or carries (its target, or the flowing layer standing
    /// in for it).
    func requestKeyFrame(for downlink: Downlink, now: NIODeadline) -> [MeetingMediaOutput] {
        let publisher = downlink.negotiated.source.publisher
        guard let uplink = members[publisher]?.uplink,
              let wanted = uplink.layerIndex(streamId: downlink.selection.target) else { return [] }
        return requestKeyFrame(from: publisher, layer: uplink.forwardedLayer(wanting: wanted, now: now), now: now)
    }

    /// A PLI (or FIR, when only that was negotiated) for one layer of a publisher, unless one went out for it less than
    /// ``keyFrameRequestInterval`` ago (then it goes out when the interval ends).
    func requestKeyFrame(from publisher: SignalingConnectionID, layer index: Int, now: NIODeadline)
        -> [MeetingMediaOutput] {
        guard let member = members[publisher], member.connected, let uplink = member.uplink,
              index < uplink.layers.count, let ssrc = uplink.layers[index].ssrc else { return [] }
        let layer = uplink.layers[index]
        if let last = layer.lastKeyFrameRequest, now - last < Self.keyFrameRequestInterval {
            layer.keyFrameRequestDeferred = true
            return []
        }
        layer.lastKeyFrameRequest = now
        layer.keyFrameRequestDeferred = false
        let request: RTCPPacket
        if uplink.negotiated.feedback.contains("nack pli") || !uplink.negotiated.feedback.contains("ccm fir") {
            request = .pictureLossIndication(senderSSRC: member.reportSSRC, mediaSSRC: ssrc)
        } else {
            layer.firSequence &+= 1
            request = .fullIntraRequest(senderSSRC: member.reportSSRC,
                                        entries: [.init(ssrc: ssrc, sequenceNumber: layer.firSequence)])
        }
        return [.rtcp(publisher, RTCPPacket.feedbackCompound(from: member.reportSSRC, request))]
    }

}
