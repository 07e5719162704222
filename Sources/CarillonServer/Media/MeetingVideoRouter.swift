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
/// ``MeetingMediaCore`` owns it and feeds it; it returns ``MeetingMediaOutput``s, appended to a buffer the caller
/// reuses. Per forwarded packet and receiver: one array from the router's ``DatagramBufferPool``, the downlink's
/// copy, built with room for the SRTP tag (it becomes the datagram; the send history copies it into a recycled
/// buffer, so it stays unshared and is protected in place; the shell gives it back to the pool once the socket's
/// outbox has copied it, so in steady state nothing is allocated), and O(1) work through a publisher → downlinks route table rebuilt only when subscriptions
/// change. `carillon bench forward --video-receivers N` measures it.
///
/// Threading: not thread-safe; the meeting's event loop owns it.
struct MeetingVideoRouter {
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
    /// A downlink's pacing rate over its estimate: bursts (a key frame) leave at up to 2.5 times the estimate...
    static let pacingFactor = 2.5
    /// ...except while the receiver's feedback says the link is overused: its bottleneck queue is filling, and what
    /// leaves faster than the estimate only waits there or is dropped at its tail. Paced at the estimate, the key
    /// frame of a switch to a lower layer fits in the room the queue frees as it drains (a burst at 2.5 times lost
    /// its last packet in `SimulcastLayerSwitchingSimulationTests`, and the switch took a second key frame).
    static let congestedPacingFactor = 1.0
    /// ...as long as what waits in the pacer leaves within this at that rate: a sender that cannot lower its rate (a
    /// single-stream camera, until its REMB takes effect) must not build a standing queue in the server instead.
    static let congestedPacerQueueLimit = TimeAmount.milliseconds(100)
    /// Round trip assumed for NACK repetition until one is measured.
    static let defaultRoundTrip = TimeAmount.milliseconds(100)
    /// A connected camera that sends nothing for this long is reported paused at its source (checked with the
    /// reports, so the report comes 2–3 s after the last packet); its next packet reports it flowing again.
    static let sourceStallTimeout = TimeAmount.seconds(2)
    /// A simulcast layer that sent no media for this long is not forwarded while another layer of the camera flows: a
    /// receiver wanting it gets the best flowing layer below it, else the lowest flowing one above it (a sender
    /// drops layers its bitrate or the app's cap does not cover, and INDEX still lists them).
    static let layerSilenceTimeout = TimeAmount.seconds(1)

    /// A session's camera as received. Uplink, downlink and member state are classes so the per-packet paths mutate
    /// them in place: a struct copied out of the dictionary would copy the NACK, feedback and history buffers on
    /// every write.
    final class Uplink {
        var negotiated: MeetingMediaNegotiation.VideoUplink
        /// Its simulcast layers, lowest first (one without simulcast).
        let layers: [VideoUplinkLayer]
        var transportFeedback: TransportFeedbackGenerator?
        var packetsReceived = 0
        /// The last packet's arrival, or when the uplink was connected or configured while none came yet.
        var lastPacketAt: NIODeadline?
        /// Reported as paused at its source (``MeetingMediaOutput/videoSourcePaused(_:paused:)``).
        var pausedAtSource = false
        /// Media octets received (payload plus 50 for headers), and at the last measurement, for ``measuredKbps``.
        var octetsReceived = 0
        var octetsMeasured = 0
        /// The received bitrate, smoothed over the report intervals (the allocator's measured layer bitrate).
        var measuredKbps = 0

        init(negotiated: MeetingMediaNegotiation.VideoUplink) {
            self.negotiated = negotiated
            let descriptions = negotiated.layers.isEmpty
                ? [VideoUplinkLayerDescription(ssrc: negotiated.ssrc, rtxSSRC: negotiated.rtxSSRC, streamId: 0)]
                : negotiated.layers
            layers = descriptions.map(VideoUplinkLayer.init)
        }

        /// The first layer's media SSRC (the whole camera without simulcast).
        var ssrc: UInt32? { layers.lazy.compactMap(\.ssrc).first }

        /// Marks the uplink started at `now` (configured, or its session connected): every layer counts as flowing
        /// until ``MeetingVideoRouter/layerSilenceTimeout`` passes without its media.
        func started(now: NIODeadline) {
            lastPacketAt = now
            for layer in layers { layer.lastPacketAt = now }
        }

        /// The layer a downlink wanting layer `wanted` is given: `wanted` while it flows, else the best flowing layer
        /// below it, else the lowest flowing layer above it; `wanted` when none flows. O(layers), no allocation.
        func forwardedLayer(wanting wanted: Int, now: NIODeadline) -> Int {
            guard layers.count > 1, !layers[wanted].isFlowing(now: now) else { return wanted }
            if let below = layers[..<wanted].lastIndex(where: { $0.isFlowing(now: now) }) { return below }
            return layers[(wanted + 1)...].firstIndex { $0.isFlowing(now: now) } ?? wanted
        }

        /// The layer carrying `streamId`; the only layer when the uplink has one whose stream id is not known.
        func layerIndex(streamId: UInt32?) -> Int? {
            guard let streamId else { return nil }
            if let index = layers.firstIndex(where: { $0.description.streamId == streamId }) { return index }
            return layers.count == 1 && layers[0].description.streamId == 0 ? 0 : nil
        }

        /// The layer a packet belongs to and whether it is RTX, binding SSRCs as `video.md` §1.2 says: a declared
        /// SSRC, else the rid (or repaired rid) extension, else (one undeclared layer) the newest media stream.
        func layer(of packet: RTPPacket) -> (index: Int, isRTX: Bool)? {
            for (index, layer) in layers.enumerated() {
                if layer.ssrc == packet.ssrc { return (index, false) }
                if layer.rtxSSRC == packet.ssrc { return (index, true) }
            }
            let isRTX = packet.payloadType == negotiated.rtxPayloadType
            if let id = isRTX ? negotiated.repairedRidExtensionId : negotiated.ridExtensionId,
               let value = packet.extensionValue(id: id), let rid = RTPHeaderExtensionValue.identifier(value),
               let index = layers.firstIndex(where: { $0.description.rid == rid }) {
                if isRTX {
                    layers[index].rtxSSRC = packet.ssrc
                } else {
                    layers[index].rebind(ssrc: packet.ssrc)
                    if index == 0 || transportFeedback?.mediaSSRC == 0 { transportFeedback?.mediaSSRC = packet.ssrc }
                }
                return (index, isRTX)
            }
            guard layers.count == 1, layers[0].description.ssrc == nil, layers[0].description.rid == nil else { return nil }
            // An SSRC the offer declared is the only one taken; otherwise the newest stream is the camera.
            if isRTX { return (0, true) }
            layers[0].rebind(ssrc: packet.ssrc)
            transportFeedback?.mediaSSRC = packet.ssrc
            return (0, false)
        }
    }

    /// One receive m-line of a session.
    final class Downlink {
        var negotiated: MeetingMediaNegotiation.VideoDownlink
        var rewriter: VP8StreamRewriter
        /// The layer of the source it carries and the one it should.
        var selection: DownlinkLayerSelection
        var rtx: RTXStream?
        var history = RTPSendHistory(capacity: 1_024)
        var pausedByReceiver = false
        /// The receiver's downlink allocation (mode 4) does not give it this source.
        var pausedByAllocator = false
        /// What the allocation leaves this stream (mode 4), for the publisher's REMB; nil otherwise.
        var allocatedBitrate: UInt64?
        var packetsSent: UInt32 = 0
        var octetsSent: UInt32 = 0
        var lastTimestamp: UInt32?
        var lastSentAt: NIODeadline?
        var remoteEstimate: UInt64?
        var retransmissions = 0
        /// Packets taken back from the pacer on switches down and pauses (`MeetingVideoRouter+Withdrawal.swift`).
        var withdrawnPackets = 0

        /// Nothing is forwarded: the receiver or its allocation paused it.
        var isPaused: Bool { pausedByReceiver || pausedByAllocator }

        init(_ negotiated: MeetingMediaNegotiation.VideoDownlink) {
            self.negotiated = negotiated
            rewriter = VP8StreamRewriter(ssrc: negotiated.ssrc, payloadType: negotiated.payloadType)
            selection = DownlinkLayerSelection(current: nil, target: negotiated.source.streamId)
            if let rtxSSRC = negotiated.rtxSSRC, let rtxType = negotiated.rtxPayloadType {
                rtx = RTXStream(ssrc: rtxSSRC, payloadTypes: [negotiated.payloadType: rtxType])
            }
        }
    }

    /// Congestion control of the video sent to one session (its receive m-lines negotiated transport-cc).
    final class DownlinkControl {
        let extensionId: UInt8
        var sequenceNumber: UInt16 = 0
        var estimator = SendSideBandwidthEstimator(configuration: .init(
            minimumBitrate: MeetingVideoRouter.minimumDownlinkBitrate, startBitrate: MeetingVideoRouter.startDownlinkBitrate,
            maximumBitrate: MeetingVideoRouter.maximumDownlinkBitrate))
        var pacer = Pacer(targetBitrate: MeetingVideoRouter.startDownlinkBitrate, pacingFactor: MeetingVideoRouter.pacingFactor)
        /// When the open bandwidth probe's padding is next topped up (`MeetingVideoRouter+Probing.swift`).
        var nextProbePadding: NIODeadline?
        /// The estimator's lost-packet count last seen, and when it last grew: loss is what tells a link that cannot
        /// carry the allocation from a receiver that only reads late (`MeetingVideoRouter+Allocation.swift`).
        var packetsLostSeen = 0
        var lastLossAt: NIODeadline?

        init(extensionId: UInt8) { self.extensionId = extensionId }
    }

    /// One session's video.
    final class Member {
        /// The SSRC this server's RTCP about the session's media is sent from (its audio SSRC).
        var reportSSRC: UInt32
        var connected = false
        /// The round trip to the session, measured from its receiver reports about the downlinks (LSR/DLSR).
        var roundTrip: TimeAmount?
        var uplink: Uplink?
        var downlinks: [Downlink] = []
        /// Present while a downlink negotiated transport-cc.
        var control: DownlinkControl?
        /// Present when the session asked for server-side adaptation (mode 4): per mid, its preference.
        var preferences: [String: VideoDownlinkPreference]?
        /// The mode-4 allocation of what the session receives (present with ``preferences`` and ``control``).
        var allocator: VideoDownlinkAllocator?
        /// The estimate last sent in BITRATES `server_available_outgoing_bitrate`, kbps.
        var reportedEstimateKbps: UInt32?

        init(reportSSRC: UInt32) { self.reportSSRC = reportSSRC }

        /// The rate its pacer is set to: the estimate, but never below the REMB floor of every stream it receives.
        var pacingTarget: Int {
            let floor = downlinks.count { !$0.isPaused } * Int(MeetingVideoRouter.minimumRemoteEstimate)
            return max(control?.estimator.targetBitrate ?? 0, floor)
        }

        /// What the session can take per stream: its estimate shared among the downlinks it has not paused; nil
        /// before its first feedback.
        var estimatePerStream: UInt64? {
            guard let control, control.estimator.feedbackCount > 0 else { return nil }
            let streams = max(1, downlinks.count { !$0.isPaused })
            return UInt64(control.estimator.targetBitrate / streams)
        }
    }

    private(set) var members: [SignalingConnectionID: Member] = [:]
    /// Publisher → the (receiver, downlink index) pairs its stream goes to.
    private(set) var routes: [SignalingConnectionID: [(receiver: SignalingConnectionID, index: Int)]] = [:]
    private var nextReports: NIODeadline?
    private var nextFeedback: NIODeadline?
    /// The arrays downlink packets are built in; the shell gives each back once its outbox has copied it
    /// (``recycle(_:)``), so forwarding allocates none in steady state.
    private(set) var datagramPool = DatagramBufferPool(limit: MeetingVideoRouter.datagramPoolLimit)
    /// The most spare datagram arrays one meeting keeps (about 384 KiB): more than one turn of a 10 × 10 meeting
    /// has in flight (a packet per receiver plus what the pacers hold); a key-frame burst beyond it allocates and the
    /// surplus is let go when it comes back.
    static let datagramPoolLimit = 256

    /// When ``tick(now:)`` is next due. Read after every packet (the shell re-arms its timer), so it allocates nothing.
    var nextDeadline: NIODeadline? {
        var earliest = nextReports.earlier(nextFeedback)
        for member in members.values {
            earliest = earliest.earlier(member.control?.pacer.nextDeadline).earlier(member.control?.nextProbePadding)
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
            if member.control?.extensionId != extensionId { member.control = DownlinkControl(extensionId: extensionId) }
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

    // MARK: RTP

    /// Whether `packet` belongs to the video uplink of `id` (its VP8 or RTX payload type).
    func carriesVideo(_ packet: RTPPacket, from id: SignalingConnectionID) -> Bool {
        guard let uplink = members[id]?.uplink?.negotiated else { return false }
        return packet.payloadType == uplink.payloadType || packet.payloadType == uplink.rtxPayloadType
    }

    /// Takes a decrypted packet of a session's video uplink and returns what goes to its receivers.
    mutating func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        receive(packet, from: id, now: now, into: &outputs)
        return outputs
    }

    /// Takes a decrypted packet of a session's video uplink and appends what goes to its receivers to `outputs` (the
    /// caller's buffer, reused from packet to packet so forwarding allocates no list).
    mutating func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline,
                          into outputs: inout [MeetingMediaOutput]) {
        guard let member = members[id], member.connected, let uplink = member.uplink else { return }
        if let extensionId = uplink.negotiated.transportCCExtensionId, let value = packet.extensionBytes(id: extensionId),
           let sequence = RTPHeaderExtensionValue.transportSequenceNumber(value) {
            uplink.transportFeedback?.received(transportSequenceNumber: sequence, arrival: now)
        }
        guard let (layerIndex, isRTX) = uplink.layer(of: packet) else { return }
        let layer = uplink.layers[layerIndex]
        var media = packet
        if isRTX {
            guard let ssrc = layer.ssrc, packet.payloadType == uplink.negotiated.rtxPayloadType,
                  let original = RTXStream.unwrap(packet, mediaSSRC: ssrc, mediaPayloadType: uplink.negotiated.payloadType)
            else { return }
            media = original
        }
        if layer.statistics == nil { layer.statistics = RTPReceiveStatistics(clockRate: 90_000) }
        layer.statistics?.record(sequenceNumber: media.sequenceNumber, rtpTimestamp: media.timestamp, arrival: now)
        layer.nack.received(sequenceNumber: media.sequenceNumber, now: now)
        layer.packetsReceived += 1
        if !isRTX { layer.lastPacketAt = now }
        layer.octetsSinceMeasurement += 12 + media.payload.count
        uplink.packetsReceived += 1
        uplink.octetsReceived &+= media.payload.count + 50
        uplink.lastPacketAt = now
        let pending = layer.nack.missingCount > 0 || (uplink.transportFeedback?.pendingPackets ?? 0) > 0
        if pending, nextFeedback == nil { nextFeedback = now + Self.feedbackInterval }

        if uplink.pausedAtSource {
            uplink.pausedAtSource = false
            outputs.append(.videoSourcePaused(id, paused: false))
        }
        var keyFrameStart: Bool?
        for (receiver, index) in routes[id] ?? [] {
            guard members[receiver]?.connected == true, let downlink = members[receiver]?.downlinks[index],
                  !downlink.isPaused else { continue }
            let wanted = uplink.layerIndex(streamId: downlink.selection.target)
            let target = wanted.map { uplink.forwardedLayer(wanting: $0, now: now) }
            if let bytes = forward(media, layer: layerIndex, of: uplink, wanted: wanted, target: target, to: receiver,
                                   downlink: downlink, keyFrameStart: &keyFrameStart, now: now) {
                // Handed over, not shared: the pacer writes the transport-wide number into it in place.
                send(consume bytes, priority: .video, to: receiver, into: &outputs, now: now)
            }
            if let target, !downlink.isPaused,
               uplink.layerIndex(streamId: downlink.selection.current) != target || downlink.rewriter.isWaitingForKeyFrame {
                outputs += requestKeyFrame(from: id, layer: target, now: now)
            }
        }
    }

    /// The downlink's copy of `media` (a packet of layer `layerIndex` of `uplink`), rewritten, stored for
    /// retransmission; nil when it is not forwarded. A downlink carries its current layer and moves to its target
    /// (layer index `target`: the layer it wants, `wanted`, or the flowing layer standing in for it) at the target's
    /// next key frame, mapping timestamps through both layers' sender reports; while the current layer's report or the
    /// target's is missing it keeps the current layer. `keyFrameStart` caches whether the packet starts a key frame,
    /// worked out only when a downlink is switching.
    private mutating func forward(_ media: RTPPacket, layer layerIndex: Int, of uplink: Uplink, wanted: Int?, target: Int?,
                                  to receiver: SignalingConnectionID, downlink: Downlink, keyFrameStart: inout Bool?,
                                  now: NIODeadline) -> [UInt8]? {
        let current = uplink.layerIndex(streamId: downlink.selection.current)
        if current != target, layerIndex == target,
           let delta = switchPoint(media, layer: layerIndex, from: current, of: uplink, downlink: downlink,
                                   keyFrameStart: &keyFrameStart) {
            // A switch down: what still waits for this downlink is of the layer left, and would delay the key frame.
            if let current, layerIndex < current { withdrawQueued(downlink, of: receiver, now: now) }
            downlink.rewriter.switchSource(to: media.ssrc, timestampDelta: delta)
            downlink.selection.current = layerIndex == wanted ? downlink.selection.target
                : uplink.layers[layerIndex].description.streamId
        } else if layerIndex != current {
            return nil
        } else if downlink.rewriter.source != media.ssrc {
            // The layer restarted on a new SSRC: continue at its next key frame.
            downlink.rewriter.switchSource(to: media.ssrc)
        }
        var bytes = datagramPool.take()
        Self.writeDownlinkPacket(media, payloadType: downlink.negotiated.payloadType,
                                 transportCCExtensionId: members[receiver]?.control?.extensionId, into: &bytes)
        guard let header = try? RTPHeader(reading: bytes),
              downlink.rewriter.rewrite(&bytes, header: header, now: now) == .forward,
              let sent = try? RTPHeader(reading: bytes)
        else {
            datagramPool.recycle(consume bytes)
            return nil
        }
        downlink.history.store(sequenceNumber: sent.sequenceNumber, packet: bytes, now: now)
        downlink.packetsSent &+= 1
        downlink.octetsSent &+= UInt32(truncatingIfNeeded: sent.payloadRange.count)
        downlink.lastTimestamp = sent.timestamp
        downlink.lastSentAt = now
        return bytes
    }

    /// Whether `media`, a packet of the target layer, is where a downlink moves to it: the start of a key frame, with
    /// the sender reports of both layers known when another layer of the same sender was flowing. Returns the
    /// timestamp delta to map through (`.some(nil)`: none needed), nil when this is no switch point.
    private func switchPoint(_ media: RTPPacket, layer layerIndex: Int, from current: Int?, of uplink: Uplink,
                             downlink: Downlink, keyFrameStart: inout Bool?) -> UInt32?? {
        if keyFrameStart == nil {
            let descriptor = try? VP8PayloadDescriptor(parsing: media.payload)
            keyFrameStart = descriptor.map {
                $0.isStartOfFrame && VP8PayloadDescriptor.isKeyFrame(payload: media.payload, descriptorLength: $0.length)
            } ?? false
        }
        guard keyFrameStart == true else { return nil }
        guard let current, current != layerIndex, downlink.rewriter.packetsForwarded > 0 else { return .some(nil) }
        guard let delta = uplink.layers[current].timestampDelta(to: uplink.layers[layerIndex]) else { return nil }
        return .some(delta)
    }

    /// Room left after a downlink packet for the SRTP tag (16 bytes with AEAD-GCM, 10 with AES-CM), so protecting it
    /// in place never grows the array.
    static let srtpTagRoom = 16

    /// A downlink's copy of `media` in one array sized for SRTP: its header with `payloadType`, no extension but a
    /// transport-wide sequence number when the downlink is congestion controlled (zero here: it is written as the
    /// packet leaves the pacer), and the payload. The rewriter then gives it the downlink's SSRC and numbers.
    /// It is written into `bytes`, emptied first with its storage kept: a pooled array of
    /// ``DatagramBufferPool/bufferCapacity`` holds a packet of up to 1464 payload bytes without growing.
    static func writeDownlinkPacket(_ media: RTPPacket, payloadType: UInt8, transportCCExtensionId: UInt8?,
                                    into bytes: inout [UInt8]) {
        let extensionBytes = transportCCExtensionId == nil ? 0 : 8
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(12 + extensionBytes + media.payload.count + srtpTagRoom)
        bytes.append(0x80 | (transportCCExtensionId == nil ? 0 : 0x10))
        bytes.append((media.marker ? 0x80 : 0) | payloadType & 0x7F)
        bytes.append(UInt8(media.sequenceNumber >> 8))
        bytes.append(UInt8(truncatingIfNeeded: media.sequenceNumber))
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: media.timestamp >> shift)) }
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: media.ssrc >> shift)) }
        if let id = transportCCExtensionId {
            // One-byte form (RFC 8285 §4.2), one word of elements: the 2-byte value and a padding byte.
            bytes.append(0xBE)
            bytes.append(0xDE)
            bytes.append(0)
            bytes.append(1)
            bytes.append(id << 4 | 1)
            bytes.append(0)
            bytes.append(0)
            bytes.append(0)
        }
        bytes.append(contentsOf: media.payload)
    }

    /// Takes back an array a downlink packet was built in, once its datagram has been written (consumed; see
    /// ``DatagramBufferPool/recycle(_:)`` for what is kept).
    mutating func recycle(_ datagram: consuming [UInt8]) {
        datagramPool.recycle(consume datagram)
    }

    /// Sends a packet to a session: straight out, or through its pacer when its downlink is congestion controlled.
    private func send(_ bytes: consuming [UInt8], priority: Pacer.Priority, to receiver: SignalingConnectionID,
                      into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        guard let control = members[receiver]?.control else {
            outputs.append(.rtp(receiver, bytes))
            return
        }
        control.pacer.enqueue(Pacer.Packet(bytes: consume bytes, priority: priority))
        pace(receiver, control, into: &outputs, now: now)
    }

    /// What a session's pacer lets go now, each packet numbered with the next transport-wide sequence number.
    private func pace(_ receiver: SignalingConnectionID, _ control: DownlinkControl,
                      into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        // At the estimate while the link is overused, unless that would hold the pacer's packets over the limit.
        let limitBytes = Double(control.pacer.targetBitrate) / 8 * Double(Self.congestedPacerQueueLimit.nanoseconds) / 1e9
        let congested = control.estimator.bandwidthUsage == .overusing && Double(control.pacer.queuedBytes) < limitBytes
        control.pacer.pacingFactor = congested ? Self.congestedPacingFactor : Self.pacingFactor
        control.pacer.poll(now: now) { packet in
            if let header = try? RTPHeader(reading: packet.bytes),
               let range = header.extensionRange(id: control.extensionId, in: packet.bytes), range.count == 2 {
                packet.bytes[range.lowerBound] = UInt8(control.sequenceNumber >> 8)
                packet.bytes[range.lowerBound + 1] = UInt8(truncatingIfNeeded: control.sequenceNumber)
                control.estimator.packetSent(transportSequenceNumber: control.sequenceNumber, size: packet.bytes.count,
                                             at: now)
                control.sequenceNumber &+= 1
            }
            outputs.append(.rtp(receiver, packet.bytes))
        }
    }

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
                control.estimator.transportFeedbackReceived(feedback, now: now)
                if control.estimator.packetsReportedLost > control.packetsLostSeen {
                    control.packetsLostSeen = control.estimator.packetsReportedLost
                    control.lastLossAt = now
                }
                control.pacer.setRate(targetBitrate: member.pacingTarget)
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
    private func downlinkLoss(_ blocks: [RTCPPacket.ReportBlock], of member: Member, now: NIODeadline) {
        guard let control = member.control else { return }
        let worst = blocks.filter { block in member.downlinks.contains { $0.negotiated.ssrc == block.ssrc } }
            .map(\.fractionLost).max()
        guard let worst else { return }
        control.estimator.receiverReportReceived(fractionLost: worst, now: now)
        control.pacer.setRate(targetBitrate: member.pacingTarget)
    }

    /// The round trip from report blocks about a session's downlinks: they echo this router's sender reports.
    private mutating func measureRoundTrip(_ blocks: [RTCPPacket.ReportBlock], of id: SignalingConnectionID, now: NIODeadline) {
        guard let member = members[id] else { return }
        for block in blocks where downlinkIndex(of: member, ssrc: block.ssrc) != nil {
            if let roundTrip = block.roundTripTime(arrival: Self.ntp(now)) { members[id]?.roundTrip = roundTrip }
        }
    }

    /// This router's NTP time: the monotonic clock (sender reports only need one clock per router, echoed back).
    private static func ntp(_ now: NIODeadline) -> NTPTimestamp { NTPTimestamp(unixNanoseconds: UInt64(now.uptimeNanoseconds)) }

    private func downlinkIndex(of member: Member, ssrc: UInt32) -> Int? {
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
    private func requestKeyFrame(for downlink: Downlink, now: NIODeadline) -> [MeetingMediaOutput] {
        let publisher = downlink.negotiated.source.publisher
        guard let uplink = members[publisher]?.uplink,
              let wanted = uplink.layerIndex(streamId: downlink.selection.target) else { return [] }
        return requestKeyFrame(from: publisher, layer: uplink.forwardedLayer(wanting: wanted, now: now), now: now)
    }

    /// A PLI (or FIR, when only that was negotiated) for one layer of a publisher, unless one went out for it less than
    /// ``keyFrameRequestInterval`` ago (then it goes out when the interval ends).
    private func requestKeyFrame(from publisher: SignalingConnectionID, layer index: Int, now: NIODeadline)
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
        return [.rtcp(publisher, Self.compound(member.reportSSRC, request))]
    }

    /// A compound packet as RFC 3550 wants it: an empty receiver report first, then `packets`.
    private static func compound(_ ssrc: UInt32, _ packets: RTCPPacket...) -> [UInt8] {
        RTCPPacket.receiverReport(ssrc: ssrc, reports: []).serialized() + packets.flatMap { $0.serialized() }
    }

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
                        outputs.append(.rtcp(id, Self.compound(member.reportSSRC,
                                                               .nack(senderSSRC: member.reportSSRC, mediaSSRC: ssrc, lost: missing))))
                    }
                    pending = pending || layer.nack.missingCount > 0
                }
                if let feedback = uplink.transportFeedback?.poll(now: now), !feedback.isEmpty {
                    for message in feedback {
                        outputs.append(.rtcp(id, Self.compound(member.reportSSRC, .transportFeedback(message))))
                    }
                }
                pending = pending || (uplink.transportFeedback?.pendingPackets ?? 0) > 0
            }
            nextFeedback = pending ? now + Self.feedbackInterval : nil
        }
        for id in members.keys.sorted() {
            if let control = members[id]?.control, let due = control.pacer.nextDeadline, due <= now {
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
            let next = due + Self.reportInterval
            nextReports = next > now ? next : now + Self.reportInterval
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
    private mutating func periodicKeyFrames(now: NIODeadline) -> [MeetingMediaOutput] {
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
    private func stalledSources(now: NIODeadline) -> [MeetingMediaOutput] {
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
    private mutating func reports(now: NIODeadline) -> [MeetingMediaOutput] {
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
    private func measureLayers() {
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
    private func remoteEstimate(for publisher: SignalingConnectionID) -> UInt64? {
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
    private mutating func rebuildRoutes() {
        routes = [:]
        for receiver in members.keys.sorted() {
            guard let member = members[receiver] else { continue }
            for (index, downlink) in member.downlinks.enumerated() {
                routes[downlink.negotiated.source.publisher, default: []].append((receiver, index))
            }
        }
    }
}
