import CarillonRTC
import NIOCore

/// The video forwarding unit (SFU) of one meeting, sans-IO: every session's camera uplink and every receive m-line's
/// downlink, with the RTP and RTCP rules of `video.md` §2.
///
/// - Uplinks: the VP8 stream of each sending session (its SSRC from the offer, or learned from the first packet),
///   RTX unwrapped, reception statistics, NACKs for what is missing (repeated each round trip, measured from the
///   session's reports about its downlinks), transport-wide feedback when negotiated, and a receiver report each
///   second.
/// - Downlinks: per receive m-line a ``VP8StreamRewriter`` (the m-line's own SSRC and continuous numbers whichever
///   source it carries), a send history answering the receiver's NACKs (over RTX when negotiated), a sender report
///   each second, and the receiver's PAUSE/RESUME.
/// - Key frames: a downlink that starts, resumes or switches waits for a key frame; its wait, and receivers' PLI and
///   FIR, become one PLI (or FIR) to the publisher at most every ``keyFrameRequestInterval``: a request within the
///   interval is deferred to its end, never dropped (the key frame already asked for may have left before the
///   receiver lost its packets).
/// - Downlink congestion control: a session whose receive m-lines negotiated `transport-cc` gets a transport-wide
///   sequence number on every video packet sent to it; its feedback drives a ``SendSideBandwidthEstimator`` and a
///   ``Pacer`` (at 2.5× the estimate) that every packet to it goes through. The pacer never runs below what its
///   publishers may send (their REMB floor per stream): without simulcast the router cannot send a receiver less, so a
///   slower pacer would only queue and drop.
/// - REMB: every publisher that negotiated `goog-remb` is sent, once a second, what its slowest receiver can take:
///   the smallest of its receivers' REMBs (aiortc) and their estimates shared among the streams each receives,
///   floored at ``minimumRemoteEstimate``. Without simulcast this is how a constrained receiver is kept from loss.
/// - Server-side adaptation (mode 4, the session's SUBSCRIBE carried preferences): once a second a
///   ``VideoDownlinkAllocator`` per receiver decides from its estimate, priorities and targets which sources it gets;
///   the others are not forwarded (S→C PAUSE `{group_ids}`) until they fit again (RESUME, at a key frame); the
///   estimate goes out as BITRATES `server_available_outgoing_bitrate` (`MeetingVideoRouter+Allocation.swift`).
///
/// Files by job: this one holds the sessions (configuration, connection, PAUSE, layer choice); `+State` the uplink,
/// downlink and member types; `+Forwarding` the RTP path; `+Feedback` the RTCP path and key-frame requests;
/// `+Reports` the timers, reports and REMB; `+Allocation` server-side adaptation; `+Probing` downlink probes;
/// `+Withdrawal` what a paused downlink takes back from its pacer.
///
/// ``MeetingMediaCore`` owns it and feeds it; it returns ``MeetingMediaOutput``s, appended to a buffer the caller
/// reuses. Per forwarded packet and receiver: one array from the media core's ``DatagramBufferPool`` (lent to each
/// ``receive(_:from:now:into:pool:)``), the downlink's
/// copy, built with room for the SRTP tag (it becomes the datagram; the send history copies it into a recycled
/// buffer, so it stays unshared and is protected in place; the shell gives it back to the pool once the socket's
/// outbox has copied it, so in steady state nothing is allocated), and O(1) work through a publisher → downlinks route table rebuilt only when subscriptions
/// change. `carillon bench forward --video-receivers N` measures it.
///
/// Threading: not thread-safe; the meeting's event loop owns it.
package struct MeetingVideoRouter {
    /// Least time between two key-frame requests to one publisher.
    static let keyFrameRequestInterval = TimeAmount.milliseconds(300)
    /// How often receiver reports (uplinks), sender reports (downlinks) and REMB go out.
    static let reportInterval = TimeAmount.seconds(1)
    /// How often missing uplink packets and transport-wide feedback are looked at while any are pending.
    static let feedbackInterval = TimeAmount.milliseconds(10)
    /// The least REMB sent to a publisher: below it a stream is not worth sending.
    static let minimumRemoteEstimate: UInt64 = 150_000
    /// The bounds and start of a session's downlink estimate.
    static let minimumDownlinkBitrate = 150_000
    static let startDownlinkBitrate = 2_500_000
    static let maximumDownlinkBitrate = 50_000_000
    /// Round trip assumed for NACK repetition until one is measured.
    static let defaultRoundTrip = TimeAmount.milliseconds(100)
    /// A connected camera that sends nothing for this long is reported paused at its source (checked with the
    /// reports, so the report comes 2–3 s after the last packet); its next packet reports it flowing again.
    static let sourceStallTimeout = TimeAmount.seconds(2)
    /// A simulcast layer that sent no media for this long is not forwarded while another layer of the camera flows: a
    /// receiver wanting it gets the best flowing layer below it, else the lowest flowing one above it (a sender
    /// drops layers its bitrate or the app's cap does not cover, and INDEX still lists them).
    static let layerSilenceTimeout = TimeAmount.seconds(1)

    var members: [SignalingConnectionID: Member] = [:]
    /// Publisher → the (receiver, downlink index) pairs its stream goes to.
    var routes: [SignalingConnectionID: [(receiver: SignalingConnectionID, index: Int)]] = [:]
    var nextReports: NIODeadline?
    var nextFeedback: NIODeadline?
    /// Whether every uplink packet is also kept in ``captured`` for the meeting's recorder.
    var capturesUplinks = false
    /// Uplink packets (RTX unwrapped) since the media core last took them, while ``capturesUplinks``: the publisher,
    /// the packet's simulcast layer, the best layer of that camera flowing now.
    var captured: [(publisher: SignalingConnectionID, layer: Int, best: Int, packet: RTPPacket)] = []

    /// When ``tick(now:)`` is next due. Read after every packet (the shell re-arms its timer), so it allocates nothing.
    var nextDeadline: NIODeadline? {
        var earliest = nextReports.earlier(nextFeedback)
        for member in members.values {
            earliest = earliest.earlier(member.control?.sender.nextDeadline)
            for layer in member.uplink?.layers ?? [] where layer.keyFrameRequestDeferred {
                if let last = layer.lastKeyFrameRequest { earliest = earliest.earlier(last + Self.keyFrameRequestInterval) }
            }
        }
        return earliest
    }

    // MARK: Sessions

    /// Applies a session's (re)negotiation. Uplink state survives when the camera m-line is unchanged, downlink
    /// state (numbering, history) when an m-line keeps its mid; a downlink given another stream switches at the new
    /// source's next key frame.
    mutating func configure(_ id: SignalingConnectionID, negotiation: MeetingMediaNegotiation, now: NIODeadline)
        -> [MeetingMediaOutput] {
        let member = members[id] ?? Member(reportSSRC: negotiation.ssrc)
        member.reportSSRC = negotiation.ssrc
        var outputs: [MeetingMediaOutput] = []
        if let negotiated = negotiation.videoUplink {
            if let uplink = member.uplink, uplink.negotiated.withoutFormats == negotiated.withoutFormats {
                // The same camera; only what SUBSCRIBE announces about its layers may have changed.
                for (layer, description) in zip(uplink.layers, negotiated.layers) { layer.format = description.format }
                uplink.negotiated = negotiated
            } else {
                let uplink = Uplink(negotiated: negotiated)
                uplink.started(now: now)
                if member.uplink?.pausedAtSource == true { outputs.append(.videoSourcePaused(id, paused: false)) }
                if negotiated.transportCCExtensionId != nil {
                    uplink.transportFeedback = TransportFeedbackGenerator(senderSSRC: negotiation.ssrc,
                                                                          mediaSSRC: negotiated.ssrc ?? 0)
                }
                member.uplink = uplink
            }
        } else {
            if member.uplink?.pausedAtSource == true { outputs.append(.videoSourcePaused(id, paused: false)) }
            member.uplink = nil
        }
        let previous = member.downlinks
        var started: [Downlink] = []
        member.downlinks = negotiation.videoDownlinks.map { negotiated in
            guard let kept = previous.first(where: { $0.negotiated.mid == negotiated.mid && $0.negotiated.ssrc == negotiated.ssrc })
            else {
                let downlink = Downlink(negotiated)
                started.append(downlink)
                return downlink
            }
            if kept.negotiated.source != negotiated.source {
                kept.pausedByReceiver = false
                kept.selection.target = negotiated.source.streamId
                started.append(kept)
            }
            kept.negotiated = negotiated
            return kept
        }
        if let extensionId = member.downlinks.lazy.compactMap(\.negotiated.transportCCExtensionId).first {
            if member.control?.sender.transportCCExtensionId != extensionId {
                member.control = DownlinkControl(extensionId: extensionId)
            }
        } else {
            member.control = nil
        }
        configureAllocation(member, preferences: negotiation.videoPreferences)
        members[id] = member
        rebuildRoutes()
        // New or switched downlinks need a key frame from their publishers; kept ones carry on as they were. Before the
        // media connects nothing is forwarded: ``connected(_:now:)`` asks then.
        guard member.connected else { return outputs }
        for downlink in started { outputs += requestKeyFrame(for: downlink, now: now) }
        return outputs
    }

    /// The session's media connected: it sends and receives video from now on.
    mutating func connected(_ id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard members[id] != nil else { return [] }
        members[id]?.connected = true
        members[id]?.uplink?.started(now: now)
        if nextReports == nil { nextReports = now + Self.reportInterval }
        return (members[id]?.downlinks ?? []).flatMap { requestKeyFrame(for: $0, now: now) }
    }

    /// Forgets a session; downlinks of others that carried its camera stay, waiting for a new source.
    mutating func remove(_ id: SignalingConnectionID) {
        guard members.removeValue(forKey: id) != nil else { return }
        rebuildRoutes()
        if members.isEmpty {
            nextReports = nil
            nextFeedback = nil
        }
    }

    /// A receiver paused or resumed streams (C→S PAUSE/RESUME); a resume asks the publisher for a key frame.
    mutating func setPaused(_ paused: Bool, streamIds: [UInt32], for id: SignalingConnectionID, now: NIODeadline)
        -> [MeetingMediaOutput] {
        guard let member = members[id] else { return [] }
        var outputs: [MeetingMediaOutput] = []
        for downlink in member.downlinks
        where streamIds.contains(downlink.negotiated.source.streamId) || streamIds.contains(downlink.selection.target) {
            guard downlink.pausedByReceiver != paused else { continue }
            downlink.pausedByReceiver = paused
            if !paused {
                // Resume at a key frame: what was skipped cannot be decoded against.
                downlink.rewriter.switchSource(to: downlink.rewriter.source)
                outputs += requestKeyFrame(for: downlink, now: now)
            }
        }
        return outputs
    }

    /// Sets the layer (a stream id of the same source) the receive m-line `mid` of session `id` should carry: a
    /// client's REMOTE_VIDEO_UPDATE, or the server's layer choice. The downlink keeps its SSRC and numbering and
    /// switches at the next key frame of that layer, which is asked for; until then the current layer flows.
    /// Ignored when `streamId` is not a layer of the source the m-line carries.
    mutating func selectLayer(_ streamId: UInt32, mid: String, for id: SignalingConnectionID, now: NIODeadline)
        -> [MeetingMediaOutput] {
        guard let downlink = members[id]?.downlinks.first(where: { $0.negotiated.mid == mid }),
              downlink.selection.target != streamId,
              members[downlink.negotiated.source.publisher]?.uplink?.layerIndex(streamId: streamId) != nil
        else { return [] }
        downlink.selection.target = streamId
        guard members[id]?.connected == true, !downlink.isPaused else { return [] }
        return requestKeyFrame(for: downlink, now: now)
    }
}
