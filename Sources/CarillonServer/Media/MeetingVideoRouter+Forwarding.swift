import CarillonMedia
import CarillonRTC
import NIOCore

/// The RTP path: uplink packets in, the downlinks they are forwarded to out (at key frames across switches).
extension MeetingVideoRouter {
    // MARK: RTP

    /// Whether `packet` belongs to the video uplink of `id` (its VP8 or RTX payload type).
    func carriesVideo(_ packet: RTPPacket, from id: SignalingConnectionID) -> Bool {
        guard let uplink = members[id]?.uplink?.negotiated else { return false }
        return packet.payloadType == uplink.payloadType || packet.payloadType == uplink.rtxPayloadType
    }

    /// Takes a decrypted packet of a session's video uplink and returns what goes to its receivers (each copy in a
    /// new array).
    mutating func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        var outputs: [MeetingMediaOutput] = []
        var pool = DatagramBufferPool(limit: 0)
        receive(packet, from: id, now: now, into: &outputs, pool: &pool)
        return outputs
    }

    /// Takes a decrypted packet of a session's video uplink and appends what goes to its receivers to `outputs` (the
    /// caller's buffer, reused from packet to packet so forwarding allocates no list), each receiver's copy built in
    /// an array from `pool`.
    mutating func receive(_ packet: RTPPacket, from id: SignalingConnectionID, now: NIODeadline,
                          into outputs: inout [MeetingMediaOutput], pool: inout DatagramBufferPool) {
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
        if capturesUplinks {
            captured.append((id, layerIndex, uplink.forwardedLayer(wanting: uplink.layers.count - 1, now: now), media))
        }
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
                                   downlink: downlink, keyFrameStart: &keyFrameStart, pool: &pool, now: now) {
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
    /// worked out only when a downlink is switching. The copy is built in an array from `pool` (given back to it when
    /// not forwarded).
    mutating func forward(_ media: RTPPacket, layer layerIndex: Int, of uplink: Uplink, wanted: Int?, target: Int?,
                          to receiver: SignalingConnectionID, downlink: Downlink, keyFrameStart: inout Bool?,
                          pool: inout DatagramBufferPool, now: NIODeadline) -> [UInt8]? {
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
        var bytes = pool.take()
        Self.writeDownlinkPacket(media, payloadType: downlink.negotiated.payloadType,
                                 transportCCExtensionId: members[receiver]?.control?.sender.transportCCExtensionId,
                                 mid: downlink.negotiated.midExtensionId.map { ($0, downlink.negotiated.mid) },
                                 into: &bytes)
        guard let header = try? RTPHeader(reading: bytes),
              downlink.rewriter.rewrite(&bytes, header: header, now: now) == .forward,
              let sent = try? RTPHeader(reading: bytes)
        else {
            pool.recycle(consume bytes)
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
    func switchPoint(_ media: RTPPacket, layer layerIndex: Int, from current: Int?, of uplink: Uplink,
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


    /// A downlink's copy of `media` in one array sized for SRTP: its header with `payloadType`; the one-byte-form
    /// extensions (RFC 8285 §4.2) of the downlink, none of the publisher's: a transport-wide sequence number when the
    /// downlink is congestion controlled (zero here: it is written as the packet leaves the pacer) and the m-line's
    /// MID when negotiated (RFC 8843 §9.2; skipped for a MID over 16 bytes, which the one-byte form cannot carry);
    /// then the payload. The rewriter then gives it the downlink's SSRC and numbers.
    ///
    /// Why the MID: the answer accepts the extension, and a receiver that gets a stream's first packets before it
    /// applied the answer declaring their SSRC can place them by it instead of guessing (by payload type, say).
    ///
    /// It is written into `bytes`, emptied first with its storage kept: a pooled array of
    /// ``DatagramBufferPool/bufferCapacity`` holds a packet of up to 1448 payload bytes (whatever the MID) without
    /// growing.
    static func writeDownlinkPacket(_ media: RTPPacket, payloadType: UInt8, transportCCExtensionId: UInt8?,
                                    mid: (id: UInt8, value: String)? = nil, into bytes: inout [UInt8]) {
        let midLength = mid.map { $0.value.utf8.count } ?? 0
        let writesMid = mid.map { (1...14).contains($0.id) } == true && (1...16).contains(midLength)
        let elementBytes = (transportCCExtensionId == nil ? 0 : 3) + (writesMid ? 1 + midLength : 0)
        let words = (elementBytes + 3) / 4
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(12 + (words > 0 ? 4 + 4 * words : 0) + media.payload.count
                              + SRTPProfile.maximumRTPTrailerLength)
        bytes.append(0x80 | (words > 0 ? 0x10 : 0))
        bytes.append((media.marker ? 0x80 : 0) | payloadType & 0x7F)
        bytes.append(UInt8(media.sequenceNumber >> 8))
        bytes.append(UInt8(truncatingIfNeeded: media.sequenceNumber))
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: media.timestamp >> shift)) }
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: media.ssrc >> shift)) }
        if words > 0 {
            bytes.append(0xBE)
            bytes.append(0xDE)
            bytes.append(UInt8(words >> 8))
            bytes.append(UInt8(truncatingIfNeeded: words))
            if let id = transportCCExtensionId {
                bytes.append(id << 4 | 1)
                bytes.append(0)
                bytes.append(0)
            }
            if writesMid, let mid {
                bytes.append(mid.id << 4 | UInt8(midLength - 1))
                bytes.append(contentsOf: mid.value.utf8)
            }
            for _ in elementBytes..<(4 * words) { bytes.append(0) }
        }
        bytes.append(contentsOf: media.payload)
    }

    /// Sends a packet to a session: straight out, or through its pacer when its downlink is congestion controlled.
    func send(_ bytes: consuming [UInt8], priority: Pacer.Priority, to receiver: SignalingConnectionID,
                      into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        guard let control = members[receiver]?.control else {
            outputs.append(.rtp(receiver, bytes))
            return
        }
        control.sender.enqueue(consume bytes, priority: priority)
        pace(receiver, control, into: &outputs, now: now)
    }

    /// What a session's pacer lets go now, each packet numbered with the next transport-wide sequence number.
    func pace(_ receiver: SignalingConnectionID, _ control: DownlinkControl,
                      into outputs: inout [MeetingMediaOutput], now: NIODeadline) {
        control.sender.send(now: now) { bytes in outputs.append(.rtp(receiver, bytes)) }
    }
}
