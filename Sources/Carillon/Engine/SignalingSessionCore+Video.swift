import CarillonMedia
import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// Video: what the app sends and receives, INDEX, the media plan and its renegotiation.
extension SignalingSessionCore {
    // MARK: Video

    /// The app starts or stops sending local video (`maxBitrateKbps` 0: the default cap); renegotiates in the meeting.
    /// With `simulcast` the camera is sent in the layers of ``SimulcastUplinkPolicy`` (`highResolution`: an FHD
    /// meeting's targets), re-chosen when INDEX changes the meeting's participants or publishers.
    mutating func setSendingVideo(_ sending: Bool, maxBitrateKbps: UInt32 = 0, simulcast: Bool = false,
                                  highResolution: Bool = false, now: SessionTime) -> [SessionAction] {
        wantsToSendVideo = sending
        sendMaxBitrateKbps = maxBitrateKbps
        sendSimulcast = simulcast
        sendHighResolution = highResolution
        return renegotiateIfNeeded()
    }

    /// The local video source delivers pictures of this size: with simulcast, the layers' sizes go to the server
    /// in a new SUBSCRIBE when they change.
    mutating func setVideoSourceSize(width: Int, height: Int, now: SessionTime) -> [SessionAction] {
        guard videoSourceSize != (width, height) else { return [] }
        videoSourceSize = (width, height)
        return renegotiateIfNeeded()
    }

    /// The camera's simulcast layers now (empty without simulcast): the table of `policies.md` §3.1 from the
    /// participants (the roster's attendees but content shares; INDEX `num_participants` until the roster came) and
    /// the publishers (the remote attendees with video in INDEX, plus this one).
    var desiredSendLayers: [SimulcastLayerSetting] {
        guard wantsToSendVideo, sendSimulcast else { return [] }
        let present = roster.attendees.count { !$0.attendeeId.hasSuffix("#content") }
        let publishers = Set(videoSources.map(\.attendeeID)).count + 1
        return SimulcastUplinkPolicy.layers(participants: present > 0 ? present : participantCount, publishers: publishers,
                                            highResolution: sendHighResolution, width: videoSourceSize.width,
                                            height: videoSourceSize.height)
    }

    /// The app starts or stops receiving remote video; renegotiates in the meeting.
    mutating func setReceivingVideo(_ receiving: Bool, now: SessionTime) -> [SessionAction] {
        wantsToReceiveVideo = receiving
        return renegotiateIfNeeded()
    }

    /// The app's `updateVideoSourceSubscriptions`: from the first call on, exactly the subscribed attendees' videos
    /// are received, with their preferences; renegotiates in the meeting when that changes what is received or the
    /// preferences sent.
    mutating func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String],
                                           now: SessionTime) -> [SessionAction] {
        var subscriptions = videoSubscriptions ?? [:]
        for attendeeId in removed { subscriptions[attendeeId] = nil }
        subscriptions.merge(addedOrUpdated) { _, new in new }
        videoSubscriptions = subscriptions
        return renegotiateIfNeeded()
    }

    /// The SUBSCRIBE `video_subscription_configuration` of `plan`: one per receive m-line with a preference.
    func videoSubscriptionConfigurations(_ plan: SessionMediaPlan) -> [SdkVideoSubscriptionConfiguration] {
        plan.receiveSlots.enumerated().compactMap { index, streamId in
            guard streamId != 0, let preference = plan.receivePreferences[streamId],
                  let source = videoSources.first(where: { $0.streamID == streamId }) else { return nil }
            var configuration = SdkVideoSubscriptionConfiguration()
            configuration.mid = SessionMediaPlan.receiveMid(index)
            configuration.attendeeID = source.attendeeID
            configuration.groupID = source.groupID
            configuration.priority = preference.priority
            configuration.targetBitrateKbps = preference.targetBitrateKbps
            configuration.qualityAdaptationPreference = .balanced
            return configuration
        }
    }

    /// The received streams to show paused, when that changed: stopped at their sender (INDEX) or paused by the
    /// server (PAUSE).
    mutating func pausedUpdate() -> [SessionAction] {
        let paused = pausedAtSourceIds.union(videoSources.filter { serverPausedGroups.contains($0.groupID) }.map(\.streamID))
        guard paused != reportedPausedStreamIds else { return [] }
        reportedPausedStreamIds = paused
        return [.setVideoPausedAtSource(paused)]
    }

    /// PAUSE or RESUME the stream received of source `groupId` (C→S, by stream id); nothing when not in the meeting or
    /// not receiving that source.
    func setRemoteVideoPaused(_ paused: Bool, groupId: UInt32, now: SessionTime) -> [SessionAction] {
        guard phase == .inMeeting,
              let streamId = mediaPlan.receiveSlots.first(where: { $0 != 0 && streamOwners[$0]?.groupId == groupId })
        else { return [] }
        var frame = Self.frame(paused ? .pause : .resume, now)
        frame.pause.streamIds = [streamId]
        return [.send(frame)]
    }

    /// The attendee a stream of the newest INDEX (or of a receive m-line) belongs to.
    func attendeeId(ofStream streamId: UInt32) -> String? {
        streamOwners[streamId]?.attendeeId
    }

    /// Takes a new INDEX: the sources, and the app's news about who has video and whether it may send.
    mutating func indexReceived(_ index: SdkIndexFrame) -> [SessionAction] {
        // The client drops its own content share; the server never lists its own camera.
        videoSources = index.sources.filter {
            $0.mediaType == .video && $0.attendeeID != credentials.attendeeId
                && $0.attendeeID != credentials.attendeeId + "#content"
        }
        var owners: [UInt32: (groupId: UInt32, attendeeId: String)] = [:]
        for streamId in mediaPlan.receiveSlots + (offeredPlan?.receiveSlots ?? []) where streamId != 0 {
            owners[streamId] = streamOwners[streamId]
        }
        for source in videoSources { owners[source.streamID] = (source.groupID, source.attendeeID) }
        streamOwners = owners
        var actions: [SessionAction] = []
        let attendees = Set(videoSources.map(\.attendeeID))
        let available = attendees.subtracting(availableVideoAttendees).sorted()
        let unavailable = availableVideoAttendees.subtracting(attendees).sorted()
        availableVideoAttendees = attendees
        // Sources that became unavailable are unsubscribed (the app subscribes again to the new object if they return).
        if var subscriptions = videoSubscriptions {
            for attendeeId in unavailable { subscriptions[attendeeId] = nil }
            videoSubscriptions = subscriptions
        }
        serverPausedGroups.formIntersection(videoSources.map(\.groupID))
        if !available.isEmpty || !unavailable.isEmpty {
            actions.append(.event(.remoteVideoSources(available: available, unavailable: unavailable)))
        }
        if index.atCapacity != atCapacity {
            atCapacity = index.atCapacity
            actions.append(.event(.cameraSendAvailability(!atCapacity)))
        }
        participantCount = Int(index.numParticipants)
        pausedAtSourceIds = Set(index.pausedAtSourceIds)
        actions += pausedUpdate()
        return actions
    }

    /// The plan the session wants now, keeping the receive slots of `current` where their stream is still wanted:
    /// when receiving, the best stream of every source the app subscribed to, or while it set no subscriptions of
    /// every source (up to the limit of 25 cameras, plus content shares), else none. In adaptation modes 3 and 4 the
    /// plan carries each stream's preference.
    func desiredPlan(from current: SessionMediaPlan) -> SessionMediaPlan {
        var bestOfGroup: [UInt32: SdkStreamDescriptor] = [:]
        for source in videoSources {
            if let best = bestOfGroup[source.groupID], best.maxBitrateKbps >= source.maxBitrateKbps { continue }
            bestOfGroup[source.groupID] = source
        }
        // Content shares (`<attendeeId>#content`) do not count toward the limit of 25 tiles.
        let best = bestOfGroup.values.sorted { $0.groupID < $1.groupID }
        let wanted: [UInt32]
        if let subscriptions = videoSubscriptions {
            wanted = wantsToReceiveVideo ? best.filter { subscriptions[$0.attendeeID] != nil }.map(\.streamID) : []
        } else {
            let content = best.filter { $0.attendeeID.hasSuffix("#content") }.map(\.streamID)
            let cameras = best.filter { !$0.attendeeID.hasSuffix("#content") }.map(\.streamID).prefix(25)
            wanted = wantsToReceiveVideo ? content + cameras : []
        }
        // A slot whose stream is no longer wanted takes the wanted stream of the same source (the sender changed its
        // layers): the m-line, its SSRC and the video's id stay.
        let wantedOfGroup = Dictionary(best.filter { wanted.contains($0.streamID) }.map { ($0.groupID, $0.streamID) },
                                       uniquingKeysWith: { first, _ in first })
        var slots: [UInt32] = []
        for streamId in current.receiveSlots {
            if wanted.contains(streamId) || streamId == 0 {
                slots.append(streamId)
            } else if let group = streamOwners[streamId]?.groupId, let successor = wantedOfGroup[group],
                      !current.receiveSlots.contains(successor), !slots.contains(successor) {
                slots.append(successor)
            } else {
                slots.append(0)
            }
        }
        for streamId in wanted where !slots.contains(streamId) {
            if let empty = slots.firstIndex(of: 0) { slots[empty] = streamId } else { slots.append(streamId) }
        }
        var preferences: [UInt32: SessionMediaPlan.ReceivePreference] = [:]
        if adaptation == .bandwidthProbing || adaptation == .bandwidthProbingAndVideoQualityAdaption {
            let automatic = SessionMediaPlan.ReceivePreference.automatic(sources: Set(best.map(\.attendeeID)).count)
            for source in best where wanted.contains(source.streamID) {
                preferences[source.streamID] = videoSubscriptions?[source.attendeeID] ?? automatic
            }
        }
        return SessionMediaPlan(sendsVideo: wantsToSendVideo, sendLayers: desiredSendLayers, receiveSlots: slots,
                                receivePreferences: preferences)
    }

    /// Offers again on the running connection when what the session wants differs from what it has; while an
    /// offer is in flight, once its answer came.
    mutating func renegotiateIfNeeded() -> [SessionAction] {
        guard phase == .inMeeting else { return [] }
        guard offeredPlan == nil else {
            renegotiationPending = true
            return []
        }
        let next = desiredPlan(from: mediaPlan)
        guard next != mediaPlan else { return [] }
        offeredPlan = next
        return [.renegotiateMedia(next)]
    }

    /// What SUBSCRIBE_ACK says about video: the allocation of this attendee's camera and the stream on each
    /// receive m-line.
    mutating func videoNegotiation(_ frame: SdkSignalFrame, plan: SessionMediaPlan) -> SessionVideoNegotiation {
        if let allocation = frame.suback.allocations.first { videoAllocation = allocation }
        if !frame.suback.allocations.isEmpty { videoAllocations = frame.suback.allocations }
        let tracks = frame.suback.tracks.compactMap { track -> SessionVideoNegotiation.Track? in
            guard track.streamID != 0, track.trackLabel.hasPrefix("v_") else { return nil }
            let mid = String(track.trackLabel.dropFirst(2))
            let owner = streamOwners[track.streamID]
            return SessionVideoNegotiation.Track(mid: mid, streamId: track.streamID, groupId: owner?.groupId ?? 0,
                                                 ssrc: track.ssrc, attendeeId: owner?.attendeeId ?? "")
        }
        let refused = frame.hasError && frame.error.status == 206
        return SessionVideoNegotiation(plan: plan, tracks: tracks, sendingRefused: refused,
                                       sendStreamId: videoAllocation?.streamID ?? 0)
    }

    /// A SUBSCRIBE_ACK with status 206: the meeting has all the video senders it takes; the app is told.
    mutating func videoRefusal(_ frame: SdkSignalFrame) -> [SessionAction] {
        guard frame.hasError, frame.error.status == 206 else { return [] }
        wantsToSendVideo = false
        return [.event(.videoStarted(.videoAtCapacityViewOnly))]
    }

    mutating func resetMediaPlan() {
        mediaPlan = SessionMediaPlan()
        offeredPlan = nil
        renegotiationPending = false
        renegotiationDeadline = nil
    }
}
