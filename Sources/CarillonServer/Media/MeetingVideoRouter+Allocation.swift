import NIOCore

/// Server-side adaptation (mode 4): each receiver's ``VideoDownlinkAllocator`` run once a second (and at once when its
/// estimate falls), its decisions applied to the downlinks (the layer each carries, or paused), PAUSE/RESUME and
/// BITRATES for the signaling side.
extension MeetingVideoRouter {
    /// The target of a receive m-line without a configuration, kbps (Chime's Maximum).
    static let unconfiguredTargetKbps = 10_000

    /// Takes a (re)negotiation's preferences: an allocator while the session asks for server-side adaptation.
    func configureAllocation(_ member: Member, preferences: [String: VideoDownlinkPreference]?) {
        member.preferences = preferences
        guard preferences != nil else {
            member.allocator = nil
            for downlink in member.downlinks {
                downlink.pausedByAllocator = false
                downlink.allocatedBitrate = nil
            }
            return
        }
        if member.allocator == nil { member.allocator = VideoDownlinkAllocator() }
    }

    /// A receiver in mode 4 changed its preferences (REMOTE_VIDEO_UPDATE): `updated` replace those of their mids,
    /// `removedMids` lose theirs (the least important tier, no ceiling); the allocation runs at once. Ignored for a
    /// session not in mode 4.
    mutating func updatePreferences(_ updated: [String: VideoDownlinkPreference], removedMids: [String],
                                    for id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let member = members[id], var preferences = member.preferences else { return [] }
        for mid in removedMids { preferences[mid] = nil }
        preferences.merge(updated) { _, new in new }
        member.preferences = preferences
        return allocateDownlinks(of: id, now: now)
    }

    /// The uplinks' measured bitrates (whole camera and per layer, smoothed over two report intervals), then the
    /// allocation of every connected receiver in mode 4 that has an estimate; called with the reports, once per
    /// ``reportInterval``, after the layers' bitrates were measured.
    mutating func allocateDownlinks(now: NIODeadline) -> [MeetingMediaOutput] {
        let seconds = Double(Self.reportInterval.nanoseconds) / 1e9
        for member in members.values {
            guard let uplink = member.uplink else { continue }
            let kbps = Int(Double((uplink.octetsReceived &- uplink.octetsMeasured) * 8) / 1000 / seconds)
            uplink.octetsMeasured = uplink.octetsReceived
            uplink.measuredKbps = uplink.measuredKbps == 0 ? kbps : (uplink.measuredKbps + kbps) / 2
            for layer in uplink.layers {
                guard let bitrate = layer.bitrate else { continue }
                let kbps = bitrate / 1000
                layer.measuredKbps = layer.measuredKbps == 0 || kbps == 0 ? kbps : (layer.measuredKbps + kbps) / 2
            }
        }
        return members.keys.sorted().flatMap { allocateDownlinks(of: $0, now: now) }
    }

    /// Runs a receiver's allocation now when its estimate fell by more than the allocator's change threshold below
    /// the estimate it acts on (a falling estimate lowers layers at once, not at the next report); called on
    /// transport-wide feedback.
    mutating func allocateIfEstimateFell(_ id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let member = members[id], let control = member.control, let accepted = member.allocator?.acceptedEstimateKbps,
              Double(control.sender.estimator.targetBitrate / 1000) <= (1 - VideoDownlinkAllocator.changeThreshold) * Double(accepted)
        else { return [] }
        return allocateDownlinks(of: id, now: now)
    }

    /// How long a reported loss counts as evidence that the downlink is congested (``VideoDownlinkAllocator``'s hold).
    static let lossMemory = TimeAmount.seconds(3)

    /// One receiver's allocation: which layer each of its downlinks carries (switched at the layer's next key frame)
    /// or whether it is paused, what each may use (for the publishers' REMB), its pacing rate, PAUSE/RESUME and the
    /// estimate for BITRATES.
    private mutating func allocateDownlinks(of id: SignalingConnectionID, now: NIODeadline) -> [MeetingMediaOutput] {
        guard let member = members[id], member.connected, var allocator = member.allocator,
              let preferences = member.preferences, let control = member.control,
              control.sender.estimator.feedbackCount > 0 else { return [] }
        var outputs: [MeetingMediaOutput] = []
        let estimateKbps = control.sender.estimator.targetBitrate / 1000
        let sources = allocationSources(of: member, preferences: preferences)
        let lossSeen = control.lastLossAt.map { now - $0 <= Self.lossMemory } ?? false
        let changes = allocator.allocate(estimateKbps: estimateKbps, sources: sources, lossSeen: lossSeen,
                                         acknowledgedKbps: control.sender.estimator.acknowledgedBitrate.map { $0 / 1000 }, now: now)
        member.allocator = allocator
        var resumedPublishers = Set<SignalingConnectionID>()
        for downlink in member.downlinks {
            let group = downlink.negotiated.source.groupId
            let paused = allocator.isPaused(group)
            if downlink.pausedByAllocator, !paused, !downlink.pausedByReceiver {
                // Resume at a key frame: what was skipped cannot be decoded against.
                downlink.rewriter.switchSource(to: downlink.rewriter.source)
                resumedPublishers.insert(downlink.negotiated.source.publisher)
            }
            if paused, !downlink.pausedByAllocator { withdrawQueued(downlink, of: id, now: now) }
            downlink.pausedByAllocator = paused
            if !downlink.isPaused, let stream = allocator.layerStream(of: group) {
                outputs += selectLayer(stream, mid: downlink.negotiated.mid, for: id, now: now)
            }
        }
        shareAllocation(member, sources: sources, allocator: allocator)
        control.sender.setRate(targetBitrate: member.pacingTarget)
        if !changes.paused.isEmpty { outputs.append(.videoDownlinkPaused(id, groupIds: changes.paused, paused: true)) }
        if !changes.resumed.isEmpty { outputs.append(.videoDownlinkPaused(id, groupIds: changes.resumed, paused: false)) }
        for publisher in resumedPublishers.sorted() { outputs += requestKeyFrame(from: publisher, now: now) }
        if let kbps = changes.probeKbps { startProbe(id, kbps: kbps, into: &outputs, now: now) }
        let reported = UInt32(clamping: estimateKbps)
        if member.reportedEstimateKbps != reported {
            member.reportedEstimateKbps = reported
            outputs.append(.videoDownlinkEstimate(id, kbps: reported))
        }
        return outputs
    }

    /// The allocator's view of what a receiver subscribed to: one source per group, its layers lowest first with
    /// their measured bitrates. A simulcast camera offers the layers that flow (a layer its sender turned off, or
    /// one not measured yet, is left out; the subscribed stream stands in while none is measured); a single-stream
    /// camera has one layer, the stream it publishes. A stream the receiver paused itself (C→S PAUSE) takes nothing
    /// and is left out.
    private func allocationSources(of member: Member, preferences: [String: VideoDownlinkPreference])
        -> [VideoDownlinkAllocator.Source] {
        var sources: [VideoDownlinkAllocator.Source] = []
        for downlink in member.downlinks {
            let source = downlink.negotiated.source
            guard !downlink.pausedByReceiver, !sources.contains(where: { $0.groupId == source.groupId }) else { continue }
            let preference = preferences[downlink.negotiated.mid] ?? .unconfigured
            let uplink = members[source.publisher]?.uplink
            var layers: [VideoDownlinkAllocator.Layer] = []
            if let uplink, uplink.layers.count > 1 {
                layers = uplink.layers.filter { $0.ssrc != nil && $0.measuredKbps > 0 }.map { layer in
                    let format = layer.format
                    return .init(streamId: layer.description.streamId, bitrateKbps: layer.measuredKbps,
                                 width: Int(format?.width ?? 0), height: Int(format?.height ?? 0),
                                 framerate: Int(format?.framerate ?? 0))
                }
                layers = VideoDownlinkAllocator.ladder(layers, degradation: preference.degradation)
            }
            if layers.isEmpty {
                layers = [.init(streamId: source.streamId, bitrateKbps: uplink?.measuredKbps ?? 0)]
            }
            sources.append(.init(
                groupId: source.groupId, priority: preference.priority,
                targetKbps: preference.targetBitrateKbps == 0 ? Self.unconfiguredTargetKbps : Int(preference.targetBitrateKbps),
                layers: layers))
        }
        return sources
    }

    /// What each served stream may use, for its publisher's REMB: the bitrate of the layer it carries plus an equal
    /// share of what the allocation leaves unused (so a publisher may grow into room the receiver has).
    private func shareAllocation(_ member: Member, sources: [VideoDownlinkAllocator.Source], allocator: VideoDownlinkAllocator) {
        let served = sources.filter { !allocator.isPaused($0.groupId) }
        func carried(_ source: VideoDownlinkAllocator.Source) -> Int {
            let stream = allocator.layerStream(of: source.groupId)
            return source.layers.first { $0.streamId == stream }?.bitrateKbps ?? source.layers.first?.bitrateKbps ?? 0
        }
        let used = served.reduce(0) { $0 + carried($1) }
        let budget = allocator.acceptedEstimateKbps ?? used
        let spare = served.isEmpty ? 0 : max(0, budget - used) / served.count
        for downlink in member.downlinks {
            guard let source = served.first(where: { $0.groupId == downlink.negotiated.source.groupId }) else {
                downlink.allocatedBitrate = nil
                continue
            }
            downlink.allocatedBitrate = UInt64(carried(source) + spare) * 1000
        }
    }
}
