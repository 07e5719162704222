import NIOCore

/// Server-side adaptation (mode 4): each receiver's ``VideoDownlinkAllocator`` run once a second, its decisions
/// applied to the downlinks, PAUSE/RESUME and BITRATES for the signaling side.
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

    /// The uplinks' measured bitrates, then the allocation of every connected receiver in mode 4 that has an
    /// estimate; called with the reports, once per ``reportInterval``.
    mutating func allocateDownlinks(now: NIODeadline) -> [MeetingMediaOutput] {
        let seconds = Double(Self.reportInterval.nanoseconds) / 1e9
        for member in members.values {
            guard let uplink = member.uplink else { continue }
            let kbps = Int(Double((uplink.octetsReceived &- uplink.octetsMeasured) * 8) / 1000 / seconds)
            uplink.octetsMeasured = uplink.octetsReceived
            uplink.measuredKbps = uplink.measuredKbps == 0 ? kbps : (uplink.measuredKbps + kbps) / 2
        }
        var outputs: [MeetingMediaOutput] = []
        for id in members.keys.sorted() {
            guard let member = members[id], member.connected, var allocator = member.allocator,
                  let preferences = member.preferences, let control = member.control,
                  control.estimator.feedbackCount > 0 else { continue }
            let estimateKbps = control.estimator.targetBitrate / 1000
            let sources = allocationSources(of: member, preferences: preferences)
            let changes = allocator.allocate(estimateKbps: estimateKbps, sources: sources, now: now)
            member.allocator = allocator
            var resumedPublishers = Set<SignalingConnectionID>()
            for downlink in member.downlinks {
                let paused = allocator.isPaused(downlink.negotiated.source.groupId)
                if downlink.pausedByAllocator, !paused, !downlink.pausedByReceiver {
                    // Resume at a key frame: what was skipped cannot be decoded against.
                    downlink.rewriter.switchSource(to: downlink.rewriter.source)
                    resumedPublishers.insert(downlink.negotiated.source.publisher)
                }
                downlink.pausedByAllocator = paused
            }
            shareAllocation(member, sources: sources, allocator: allocator)
            control.pacer.setRate(targetBitrate: member.pacingTarget)
            if !changes.paused.isEmpty { outputs.append(.videoDownlinkPaused(id, groupIds: changes.paused, paused: true)) }
            if !changes.resumed.isEmpty { outputs.append(.videoDownlinkPaused(id, groupIds: changes.resumed, paused: false)) }
            for publisher in resumedPublishers.sorted() { outputs += requestKeyFrame(from: publisher, now: now) }
            let reported = UInt32(clamping: estimateKbps)
            if member.reportedEstimateKbps != reported {
                member.reportedEstimateKbps = reported
                outputs.append(.videoDownlinkEstimate(id, kbps: reported))
            }
        }
        return outputs
    }

    /// The allocator's view of what a receiver subscribed to: one source per group, its layers with their measured
    /// bitrates (a single-stream source has one layer: the stream it publishes). A stream the receiver paused itself
    /// (C→S PAUSE) takes nothing and is left out.
    private func allocationSources(of member: Member, preferences: [String: VideoDownlinkPreference]) -> [VideoDownlinkAllocator.Source] {
        var sources: [VideoDownlinkAllocator.Source] = []
        for downlink in member.downlinks {
            let source = downlink.negotiated.source
            guard !downlink.pausedByReceiver, !sources.contains(where: { $0.groupId == source.groupId }) else { continue }
            let preference = preferences[downlink.negotiated.mid] ?? .unconfigured
            let measured = members[source.publisher]?.uplink?.measuredKbps ?? 0
            sources.append(.init(
                groupId: source.groupId, priority: preference.priority,
                targetKbps: preference.targetBitrateKbps == 0 ? Self.unconfiguredTargetKbps : Int(preference.targetBitrateKbps),
                layers: [.init(streamId: source.streamId, bitrateKbps: measured)]))
        }
        return sources
    }

    /// What each served stream may use, for its publisher's REMB: its measured bitrate plus an equal share of what
    /// the allocation leaves unused (so a publisher may grow into room the receiver has).
    private func shareAllocation(_ member: Member, sources: [VideoDownlinkAllocator.Source], allocator: VideoDownlinkAllocator) {
        let served = sources.filter { !allocator.isPaused($0.groupId) }
        let used = served.reduce(0) { $0 + ($1.layers.first?.bitrateKbps ?? 0) }
        let budget = allocator.acceptedEstimateKbps ?? used
        let spare = served.isEmpty ? 0 : max(0, budget - used) / served.count
        for downlink in member.downlinks {
            guard let source = served.first(where: { $0.groupId == downlink.negotiated.source.groupId }) else {
                downlink.allocatedBitrate = nil
                continue
            }
            downlink.allocatedBitrate = UInt64((source.layers.first?.bitrateKbps ?? 0) + spare) * 1000
        }
    }
}
