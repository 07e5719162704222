import CarillonMedia
import CarillonRTC
import NIOCore

extension MeetingVideoRouter {
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
        /// Every video packet to the session leaves through it, paced and numbered; its feedback drives the estimate.
        let sender: PacedSender
        /// The estimator's lost-packet count last seen, and when it last grew: loss is what tells a link that cannot
        /// carry the allocation from a receiver that only reads late (`MeetingVideoRouter+Allocation.swift`).
        var packetsLostSeen = 0
        var lastLossAt: NIODeadline?

        init(extensionId: UInt8) {
            sender = PacedSender(estimator: .init(minimumBitrate: MeetingVideoRouter.minimumDownlinkBitrate,
                                                  startBitrate: MeetingVideoRouter.startDownlinkBitrate,
                                                  maximumBitrate: MeetingVideoRouter.maximumDownlinkBitrate),
                                 transportCCExtensionId: extensionId, paceAtTargetWhenOverused: true)
        }
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
            return max(control?.sender.estimator.targetBitrate ?? 0, floor)
        }

        /// What the session can take per stream: its estimate shared among the downlinks it has not paused; nil
        /// before its first feedback.
        var estimatePerStream: UInt64? {
            guard let control, control.sender.estimator.feedbackCount > 0 else { return nil }
            let streams = max(1, downlinks.count { !$0.isPaused })
            return UInt64(control.sender.estimator.targetBitrate / streams)
        }
    }
}
