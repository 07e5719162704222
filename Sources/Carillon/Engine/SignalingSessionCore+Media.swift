import CarillonProtocol
import CarillonRTC
import Foundation
import NIOCore

/// The media connection's steps: the offer, SUBSCRIBE_ACK's answer, connected, failed.
extension SignalingSessionCore {
    /// The local offer of a new media connection, or of a renegotiation, is ready: SUBSCRIBE with it.
    mutating func mediaOfferReady(_ offer: String, now: SessionTime) -> [SessionAction] {
        guard let plan = offeredPlan else { return [] }
        if case .connectingMedia(let deadline, false) = phase {
            phase = .connectingMedia(deadline: deadline, subscribed: true)
        } else if phase != .inMeeting {
            return []
        }
        var audio = SdkStreamDescriptor()
        audio.mediaType = .audio
        audio.trackLabel = "AmazonChimeExpressAudio"
        audio.streamID = 1
        audio.groupID = 1
        audio.framerate = 15
        audio.maxBitrateKbps = 600
        audio.avgBitrateBps = 400_000
        audio.attendeeID = credentials.attendeeId
        var subscribe = SdkSubscribeFrame()
        subscribe.duplex = plan.sendsVideo ? .duplex : .rx
        subscribe.sendStreams = [audio]
        if plan.sendsVideo, !plan.sendLayers.isEmpty {
            // Simulcast (`signaling.md` §4.9): one entry per layer in rid order, disabled layers at 0 kbps.
            for (index, layer) in plan.sendLayers.enumerated() {
                var video = SdkStreamDescriptor()
                video.mediaType = .video
                video.trackLabel = ""
                if index < videoAllocations.count {
                    video.streamID = videoAllocations[index].streamID
                    video.groupID = videoAllocations[index].groupID
                }
                video.framerate = 15
                video.maxBitrateKbps = layer.maxBitrateKbps
                if layer.width > 0, layer.height > 0 {
                    video.width = UInt32(layer.width)
                    video.height = UInt32(layer.height)
                }
                video.attendeeID = credentials.attendeeId
                subscribe.sendStreams.append(video)
            }
        } else if plan.sendsVideo {
            var video = SdkStreamDescriptor()
            video.mediaType = .video
            video.trackLabel = "AmazonChimeExpressVideo"
            video.streamID = videoAllocation?.streamID ?? 2
            video.groupID = videoAllocation?.groupID ?? 2
            video.framerate = 15
            video.maxBitrateKbps = sendMaxBitrateKbps > 0 ? sendMaxBitrateKbps : 1_400
            video.attendeeID = credentials.attendeeId
            subscribe.sendStreams.append(video)
        }
        subscribe.receiveStreamIds = plan.receiveStreamIds
        if adaptation == .bandwidthProbing || adaptation == .bandwidthProbingAndVideoQualityAdaption {
            subscribe.videoSubscriptionConfiguration = videoSubscriptionConfigurations(plan)
        }
        subscribe.sdpOffer = offer
        subscribe.audioHost = audioHost
        subscribe.audioCheckin = false
        subscribe.audioMuted = muted
        var frame = Self.frame(.subscribe, now)
        frame.sub = subscribe
        if phase == .inMeeting { renegotiationDeadline = now.monotonic + Self.stepTimeout }
        return [.send(frame)]
    }

    /// The media connection completed ICE and DTLS: the session is in the meeting.
    mutating func mediaConnected(now: SessionTime) -> [SessionAction] {
        guard case .connectingMedia(_, true) = phase else { return [] }
        let reconnecting = hasBeenInMeeting
        phase = .inMeeting
        hasBeenInMeeting = true
        connectedAt = now.monotonic
        backoff.reset()
        var actions: [SessionAction] = [.event(.started(reconnecting: reconnecting))]
        if !videoStartedReported {
            videoStartedReported = true
            actions.append(.event(.videoStarted(.ok)))
        }
        // Mute survives a reconnect: tell the new server side.
        if muted { actions.append(.send(audioControl(now))) }
        // What changed while connecting (INDEX, local video) is offered now.
        return actions + renegotiateIfNeeded()
    }

    /// The media connection could not be made or was lost (ICE or DTLS failure, consent expiry, no audio for too
    /// long): reconnect. `cause` is the status reported if reconnecting gives up before the session ever joined.
    mutating func mediaFailed(cause: MeetingSessionStatusCode = .audioInternalServerError, now: SessionTime) -> [SessionAction] {
        switch phase {
        case .connectingMedia, .inMeeting: [.closeSocket] + retry(now: now, cause: cause)
        default: []
        }
    }
}
