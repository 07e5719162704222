import CarillonProtocol
import Foundation
import NIOCore

/// Video sources: SUBSCRIBE's publication and receive requests, their answers, INDEX, BITRATES and the media side's
/// reports about them.
extension MeetingSignalingCore {
    /// The media side's answer to a SUBSCRIBE on `connection`: SUBSCRIBE_ACK with the SDP answer, the allocations of
    /// the session's own video and the tracks it receives, or with an error `status` the client reads as terminal (an
    /// offer that cannot be answered will not get better on retry; 501 when the server serves no media). A session
    /// refused as a video sender gets the answer with status 206. Every other session gets a new INDEX when the
    /// meeting's video sources changed.
    public mutating func subscribeAnswered(
        _ connection: SignalingConnectionID,
        answer: Result<SubscribeAnswer, SubscribeRefusal>,
        now: ClockReading
    ) -> [MeetingSignalingOutput] {
        let pending = pendingVideo.removeValue(forKey: connection)
        guard connections[connection] != nil else { return [] }
        var frame = makeFrame(.subscribeAck, now: now)
        var ack = SdkSubscribeAckFrame()
        ack.duplex = .rx
        var outputs: [MeetingSignalingOutput] = []
        switch answer {
        case .success(let answer):
            ack.sdpAnswer = answer.sdp
            ack.tracks = answer.tracks.map { track in
                var mapping = SdkTrackMapping()
                mapping.streamID = track.streamId
                mapping.ssrc = track.ssrc
                mapping.trackLabel = "v_\(track.mid)"
                return mapping
            }
            let before = publications[connection]
            switch pending {
            case .publish(var publication):
                // A re-SUBSCRIBE keeps the media's state: only the router reports a change.
                publication.pausedAtSource = before?.pausedAtSource ?? false
                publications[connection] = publication
                ack.duplex = .duplex
                ack.allocations = publication.layers.map { layer in
                    var allocation = SdkStreamAllocation()
                    allocation.trackLabel = layer.trackLabel
                    allocation.streamID = layer.streamId
                    allocation.groupID = publication.groupId
                    return allocation
                }
            case .stop:
                publications[connection] = nil
            case .refused:
                frame.error = Self.errorBody(206, "video sending refused: the meeting has \(configuration.maximumVideoSenders) video senders")
            case nil:
                break
            }
            if publications[connection] != before { outputs += indexUpdate(now: now, excluding: connection) }
            if before == nil, let started = publications[connection] {
                outputs.append(.activity(started.identity, .videoStarted))
            } else if let before, publications[connection] == nil {
                outputs.append(.activity(before.identity, .videoStopped))
            }
        case .failure(let refusal):
            frame.error = Self.errorBody(refusal.status, refusal.message)
        }
        frame.suback = ack
        return [.send([connection], frame)] + outputs
    }


    // MARK: - Video sources

    /// Applies the meeting's video rules to a SUBSCRIBE: whether the session may publish (its ids stay stable across
    /// renegotiations; a new publication gets a new, larger group id) and which live stream each video m-line wants.
    mutating func videoRequest(_ subscribe: SdkSubscribeFrame, from connection: SignalingConnectionID,
                                       identity: AttendeeIdentity) -> VideoSubscribeRequest {
        let sends = subscribe.sendStreams.filter { $0.mediaType == .video }
        let permissions = connections[connection]?.permissions ?? .all
        var sending = VideoSubscribeRequest.Sending.none
        if sends.isEmpty {
            pendingVideo[connection] = .stop
        } else if !permissions.sendsVideo {
            // The attendee's capabilities do not let it publish: answered as a meeting at its sender limit is (206).
            pendingVideo[connection] = .refused
            sending = .refused
        } else if var publication = publications[connection] {
            publication.layers = layers(for: sends, keeping: publication.layers)
            pendingVideo[connection] = .publish(publication)
            sending = .allowed
        } else if !Self.isContent(identity.attendeeId), cameraPublicationCount >= configuration.maximumVideoSenders {
            pendingVideo[connection] = .refused
            sending = .refused
        } else {
            let groupId = nextGroupId
            nextGroupId &+= 1
            pendingVideo[connection] = .publish(VideoPublication(identity: identity, groupId: groupId,
                                                                 layers: layers(for: sends, keeping: [])))
            sending = .allowed
        }
        let receive = subscribe.receiveStreamIds.map { streamId -> VideoSourceReference? in
            guard streamId != 0 else { return nil }
            for (publisher, publication) in publications where publication.identity.attendeeId != identity.attendeeId {
                guard Self.isContent(publication.identity.attendeeId) ? permissions.receivesContent : permissions.receivesVideo
                else { continue }
                if publication.layers.contains(where: { $0.streamId == streamId }) {
                    return VideoSourceReference(publisher: publisher, streamId: streamId, groupId: publication.groupId,
                                                attendeeId: publication.identity.attendeeId)
                }
            }
            return nil
        }
        var sendStreamIds: [UInt32] = []
        var sendStreamFormats: [VideoSubscribeRequest.StreamFormat] = []
        if case .publish(let publication) = pendingVideo[connection] {
            sendStreamIds = publication.layers.map(\.streamId)
            sendStreamFormats = publication.layers.map { .init(width: $0.width, height: $0.height, framerate: $0.framerate) }
        }
        return VideoSubscribeRequest(sending: sending, receive: receive, sendStreamIds: sendStreamIds,
                                     sendStreamFormats: sendStreamFormats)
    }

    /// The encodings of `sends`, keeping the stream ids already allocated to the same positions.
    mutating func layers(for sends: [SdkStreamDescriptor], keeping existing: [VideoLayer]) -> [VideoLayer] {
        sends.enumerated().map { index, send in
            let streamId: UInt32
            if index < existing.count {
                streamId = existing[index].streamId
            } else {
                streamId = nextVideoStreamId
                nextVideoStreamId &+= 1
            }
            return VideoLayer(streamId: streamId, maxBitrateKbps: send.maxBitrateKbps, framerate: send.framerate,
                              trackLabel: send.trackLabel, width: send.width, height: send.height)
        }
    }

    /// Most stored data messages replayed in one frame (at 2 KiB each, 200 KiB).
    static let replayMessagesPerFrame = 100

    /// Whether an attendee id is a content share's (`<attendeeId>#content`).
    static func isContent(_ attendeeId: String) -> Bool { attendeeId.hasSuffix(JoinToken.contentSuffix) }

    /// The publications that count toward ``Configuration/maximumVideoSenders``: all but content shares.
    var cameraPublicationCount: Int {
        publications.values.count { !Self.isContent($0.identity.attendeeId) }
    }

    /// SUBSCRIBE `video_subscription_configuration` by mid (mode 4).
    static func preferences(_ configurations: [SdkVideoSubscriptionConfiguration]) -> [String: VideoDownlinkPreference] {
        var preferences: [String: VideoDownlinkPreference] = [:]
        for configuration in configurations {
            let degradation: VideoDegradationPreference = switch configuration.qualityAdaptationPreference {
            case .balanced: .balanced
            case .maintainFramerate: .maintainFramerate
            case .maintainResolution: .maintainResolution
            }
            preferences[configuration.mid] = VideoDownlinkPreference(priority: configuration.priority,
                                                                     targetBitrateKbps: configuration.targetBitrateKbps,
                                                                     degradation: degradation)
        }
        return preferences
    }

    /// A receiver's allocation (mode 4) stopped or restarted forwarding sources: S→C PAUSE or RESUME `{group_ids}`.
    public func videoDownlinkPaused(_ connection: SignalingConnectionID, groupIds: [UInt32], paused: Bool,
                                    now: ClockReading) -> [MeetingSignalingOutput] {
        guard connections[connection]?.joined == true, !groupIds.isEmpty else { return [] }
        var frame = makeFrame(paused ? .pause : .resume, now: now)
        var body = SdkPauseResumeFrame()
        body.groupIds = groupIds
        frame.pause = body
        return [.send([connection], frame)]
    }

    /// A receiver's downlink estimate (mode 4): BITRATES with `server_available_outgoing_bitrate` in kbps and the
    /// streams' latest measured rates; kept, so the once-a-second rates carry it too (a BITRATES without it would
    /// tell a priority-based client it has no bandwidth).
    public mutating func videoDownlinkEstimate(_ connection: SignalingConnectionID, kbps: UInt32,
                                               now: ClockReading) -> [MeetingSignalingOutput] {
        guard connections[connection]?.joined == true else { return [] }
        connections[connection]?.downlinkEstimateKbps = kbps
        return [.send([connection], bitratesFrame(for: connection, now: now))]
    }

    /// The media of a session's camera stopped arriving (`paused`) or arrives again: everyone else gets a new INDEX
    /// whose `paused_at_source_ids` lists (or no longer lists) its stream ids, and marks its tile accordingly.
    public mutating func videoSourcePaused(_ connection: SignalingConnectionID, paused: Bool,
                                           now: ClockReading) -> [MeetingSignalingOutput] {
        guard var publication = publications[connection], publication.pausedAtSource != paused else { return [] }
        publication.pausedAtSource = paused
        publications[connection] = publication
        return indexUpdate(now: now, excluding: connection)
    }

    /// The measured bitrates of the meeting's video streams (bits per second, by stream id): a BITRATES frame to every
    /// joined socket, the senders' own streams included (`signaling.md` §3.12), with the receiver's downlink estimate
    /// when it has one. Streams no publication lists are left out. O(streams) per call; receivers without an estimate
    /// share one encoded frame.
    public mutating func videoBitrates(_ rates: [(streamId: UInt32, bitrate: Int)], now: ClockReading)
        -> [MeetingSignalingOutput] {
        let known = Set(publications.values.flatMap { $0.layers.map(\.streamId) })
        latestBitrates = rates.filter { known.contains($0.streamId) }.map { rate in
            var entry = SdkBitrate()
            entry.sourceStreamID = rate.streamId
            entry.avgBitrateBps = UInt32(clamping: rate.bitrate)
            return entry
        }
        guard !latestBitrates.isEmpty else { return [] }
        let targets = joinedConnections()
        let plain = targets.filter { connections[$0]?.downlinkEstimateKbps == nil }
        var outputs: [MeetingSignalingOutput] = plain.isEmpty ? [] : [.send(plain, bitratesFrame(for: nil, now: now))]
        for target in targets where connections[target]?.downlinkEstimateKbps != nil {
            outputs.append(.send([target], bitratesFrame(for: target, now: now)))
        }
        return outputs
    }

    /// A BITRATES frame: the latest measured stream rates, and `receiver`'s downlink estimate when it has one.
    func bitratesFrame(for receiver: SignalingConnectionID?, now: ClockReading) -> SdkSignalFrame {
        var frame = makeFrame(.bitrates, now: now)
        var body = SdkBitrateFrame()
        body.bitrates = latestBitrates
        if let receiver, let kbps = connections[receiver]?.downlinkEstimateKbps { body.serverAvailableOutgoingBitrate = kbps }
        frame.bitrates = body
        return frame
    }

    /// Removes the publication of a socket that ended or left, telling everyone else with a new INDEX.
    mutating func endPublication(of connection: SignalingConnectionID, now: ClockReading) -> [MeetingSignalingOutput] {
        pendingVideo[connection] = nil
        guard let ended = publications.removeValue(forKey: connection) else { return [] }
        return indexUpdate(now: now, excluding: connection) + [.activity(ended.identity, .videoStopped)]
    }

    /// A fresh INDEX for every joined socket but `excluded` (each sees every source but its own attendee's).
    func indexUpdate(now: ClockReading, excluding excluded: SignalingConnectionID?) -> [MeetingSignalingOutput] {
        joinedConnections(excluding: excluded).compactMap { target in
            guard let attendeeId = connections[target]?.identity.attendeeId else { return nil }
            return .send([target], indexFrame(for: target, attendeeId: attendeeId, now: now))
        }
    }

    /// The INDEX one receiver gets (`video.md` §3): one descriptor per enabled encoding of every other attendee's
    /// source, VP8 as the meeting's codec, and whether it may still start sending.
    func indexFrame(for receiver: SignalingConnectionID, attendeeId: String, now: ClockReading) -> SdkSignalFrame {
        var index = SdkIndexFrame()
        index.atCapacity = publications[receiver] == nil && cameraPublicationCount >= configuration.maximumVideoSenders
        index.numParticipants = UInt32(participants.count)
        index.supportedReceiveCodecIntersection = [.vp8]
        let permissions = connections[receiver]?.permissions ?? .all
        let sources = publications.filter { $0.value.identity.attendeeId != attendeeId }
            .filter { Self.isContent($0.value.identity.attendeeId) ? permissions.receivesContent : permissions.receivesVideo }
            .sorted { $0.value.groupId < $1.value.groupId }
        for (_, publication) in sources {
            let enabled = publication.layers.filter { $0.maxBitrateKbps > 0 }
            for layer in enabled.isEmpty ? Array(publication.layers.prefix(1)) : enabled {
                var descriptor = SdkStreamDescriptor()
                descriptor.streamID = layer.streamId
                descriptor.groupID = publication.groupId
                descriptor.framerate = layer.framerate > 0 ? layer.framerate : 15
                descriptor.maxBitrateKbps = layer.maxBitrateKbps > 0 ? layer.maxBitrateKbps : 1_500
                descriptor.avgBitrateBps = descriptor.maxBitrateKbps * 1_000
                descriptor.trackLabel = layer.trackLabel
                if layer.width > 0, layer.height > 0 {
                    descriptor.width = layer.width
                    descriptor.height = layer.height
                }
                descriptor.attendeeID = publication.identity.attendeeId
                descriptor.externalUserID = publication.identity.externalUserId
                descriptor.mediaType = .video
                index.sources.append(descriptor)
                if publication.pausedAtSource { index.pausedAtSourceIds.append(layer.streamId) }
            }
        }
        var frame = makeFrame(.index, now: now)
        frame.index = index
        return frame
    }
}
