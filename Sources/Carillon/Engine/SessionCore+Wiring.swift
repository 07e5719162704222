import CarillonCodecs
import CarillonMedia
import CarillonProtocol
import CarillonRTC
import NIOCore

/// The wiring between the parts: signaling's actions carried out, the media cores' effects routed through the peer
/// connection, the media connection made, answered, connected and ended.
extension SessionCore {
    /// Steps the signaling core and carries out what it asks.
    func signal(_ now: SessionTime, _ step: (inout SignalingSessionCore, SessionTime) -> [SessionAction])
        -> [SessionCoreEffect] {
        let actions = step(&signaling, now)
        var effects: [SessionCoreEffect] = []
        for action in actions {
            switch action {
            case .openSocket: effects.append(.openSignaling)
            case .send(let frame): effects.append(.sendSignaling(frame))
            case .closeSocket: effects.append(.closeSignaling)
            case .event(let event): effects.append(.event(event))
            case .prepareMedia(let plan): effects += prepareMedia(plan, now: now)
            case .renegotiateMedia(let plan): effects += renegotiateMedia(plan, now: now)
            case .connectMedia(let answer, let video): effects += connectMedia(answer: answer, video: video, now: now)
            case .applyAnswer(let answer, let video): effects += applyAnswer(answer, video: video, now: now)
            case .stopMedia: effects += stopMedia(now: now)
            case .setVideoPausedAtSource(let streamIds): effects += carryOut(video.setPausedAtSource(streamIds), now: now)
            }
        }
        return effects
    }

    /// Carries out what the audio or video core asks: packets through the peer, metrics and verdicts routed; the
    /// rest goes to the shell.
    func carryOut(_ mediaEffects: [SessionMediaEffect], now: SessionTime) -> [SessionCoreEffect] {
        var effects: [SessionCoreEffect] = []
        for effect in mediaEffects {
            switch effect {
            case .sendRTP(let packet):
                if let (datagram, target) = connection?.peer?.sendRTP(packet) { effects.append(.sendDatagram(datagram, to: target)) }
            case .sendRTCP(let compound):
                if let (datagram, target) = connection?.peer?.sendRTCP(compound) {
                    effects.append(.sendDatagram(datagram, to: target))
                }
            case .videoMetrics(let metrics):
                media.videoMetricsMeasured(metrics, now: now.monotonic)
            case .clientMetric(let frame):
                effects += signal(now) { core, now in core.clientMetric(frame, now: now) }
            case .reconnect:
                logger.error(msg: "no audio received for \(AudioConnectionHealth.silentSamplesBeforeReconnect) s: reconnecting")
                effects += signal(now) { $0.mediaFailed(cause: .connectionHealthReconnect, now: $1) }
            default:
                effects.append(.media(effect))
            }
        }
        return effects
    }

    /// A new media connection: the old one goes, a socket is bound for the new one (the offer follows the bind).
    func prepareMedia(_ plan: SessionMediaPlan, now: SessionTime) -> [SessionCoreEffect] {
        var effects = stopMedia(now: now)
        guard certificate != nil else {
            logger.error(msg: "no DTLS certificate: media cannot connect")
            return effects + signal(now) { $0.mediaFailed(now: $1) }
        }
        pendingPlan = plan
        effects.append(.bindMediaSocket(generation: mediaGeneration))
        return effects
    }

    /// A new offer on the running media connection (same transport): only the video m-lines change.
    func renegotiateMedia(_ plan: SessionMediaPlan, now: SessionTime) -> [SessionCoreEffect] {
        guard let connection else { return [] }
        let identifiers = connection.identifiers
        let offer = offer(plan, transport: connection.local, identifiers: identifiers)
        return signal(now) { $0.mediaOfferReady(offer, now: $1) }
    }

    /// The offer for `plan` on `transport`; without ``offersReceiveFeedback`` the receive m-lines leave out
    /// transport-wide congestion control.
    func offer(_ plan: SessionMediaPlan, transport: TransportDescription, identifiers: MediaIdentifiers) -> String {
        var offer = plan.offer(transport: transport, audioSSRC: identifiers.audioSSRC,
                               videoSSRCs: (identifiers.videoSSRC, identifiers.rtxSSRC), cname: signaling.credentials.attendeeId)
        if !offersReceiveFeedback {
            for index in offer.media.indices where offer.media[index].direction == .recvonly {
                offer.media[index].extensions.removeAll { $0.uri == SDPExtension.transportWideCCURI }
                for codec in offer.media[index].codecs.indices {
                    offer.media[index].codecs[codec].feedback.removeAll { $0 == "transport-cc" }
                }
            }
        }
        return offer.serialized
    }

    /// Applies the server's answer: a controlling ICE agent towards the answer's candidates, DTLS as negotiated.
    func connectMedia(answer text: String, video negotiation: SessionVideoNegotiation, now: SessionTime)
        -> [SessionCoreEffect] {
        guard var connection, let certificate else { return [] }
        do {
            let answer = try SessionMediaAnswer(answer: text, local: connection.local, certificate: certificate)
            var configuration = answer.configuration
            configuration.tieBreaker = connection.identifiers.tieBreaker
            let peer = try PeerConnection(configuration: configuration)
            connection.answer = answer
            connection.video = negotiation
            connection.peer = peer
            self.connection = connection
            return peerOutput(peer.start(now: now.monotonic), now: now)
        } catch {
            logger.error(msg: "the server's answer cannot be used: \(error)")
            return signal(now) { $0.mediaFailed(now: $1) }
        }
    }

    /// Applies the answer to a renegotiation: the video core takes the new send and receive configuration.
    func applyAnswer(_ text: String, video negotiation: SessionVideoNegotiation, now: SessionTime)
        -> [SessionCoreEffect] {
        guard var connection, let certificate else { return [] }
        do {
            connection.answer = try SessionMediaAnswer(answer: text, local: connection.local, certificate: certificate)
            connection.video = negotiation
            self.connection = connection
            return configureVideo(now: now)
        } catch {
            logger.error(msg: "the server's answer to a renegotiation cannot be used: \(error)")
            return []
        }
    }

    /// What the peer connection sends goes out; what it reports is routed.
    func peerOutput(_ output: PeerConnectionOutput, now: SessionTime) -> [SessionCoreEffect] {
        var effects = output.datagrams.map { SessionCoreEffect.sendDatagram($0.0, to: $0.1) }
        for event in output.events {
            switch event {
            case .connected(let profile):
                logger.info(msg: "media connected (\(profile))")
                effects += startAudio(now: now)
                effects += configureVideo(now: now)
                effects += signal(now) { $0.mediaConnected(now: $1) }
            case .rtp(let packet):
                if video.receives(ssrc: packet.ssrc) {
                    effects += carryOut(video.received(rtp: packet, now: now.monotonic), now: now)
                } else {
                    media.received(rtp: packet, now: now)
                }
            case .rtcp(let packets):
                media.received(rtcp: packets, now: now)
                // The video core takes feedback about what it sends and the server's sender reports about what it
                // receives (echoed so the server measures its round trip).
                effects += carryOut(video.received(rtcp: packets, now: now.monotonic), now: now)
            case .failed(let failure):
                logger.error(msg: "media failed: \(failure)")
                effects += signal(now) { $0.mediaFailed(now: $1) }
            case .closed:
                // The server closes media when it ends the session on purpose; signaling says why (and may arrive
                // later than this datagram), and ICE consent fails within 30 s if the server is gone for real.
                logger.info(msg: "the server closed the media connection")
            case .iceConnected, .pathChanged:
                break
            }
        }
        return effects
    }

    /// Starts the audio core for the connected media: it asks for the devices and runs the 20 ms clock.
    func startAudio(now: SessionTime) -> [SessionCoreEffect] {
        guard let connection, let answer = connection.answer else { return [] }
        let identifiers = connection.identifiers
        let audio = SessionMediaCore.Connection(
            ssrc: identifiers.audioSSRC, cname: signaling.credentials.attendeeId, payloadType: answer.opusPayloadType,
            audioLevelExtensionId: answer.audioLevelExtensionId, audioMode: audioConfiguration.audioMode,
            capabilities: audioConfiguration.audioDeviceCapabilities, muted: signaling.isMuted,
            firstSequenceNumber: identifiers.firstSequenceNumber, firstTimestamp: identifiers.firstTimestamp)
        do {
            return carryOut(try media.connected(audio, now: now), now: now)
        } catch {
            logger.error(msg: "audio cannot start: \(error)")
            return []
        }
    }

    /// Hands the video core what the current answer and SUBSCRIBE_ACK settled (once media is connected).
    func configureVideo(now: SessionTime) -> [SessionCoreEffect] {
        guard let connection, let answer = connection.answer, let negotiation = connection.video, media.isConnected
        else { return [] }
        let identifiers = connection.identifiers
        let videoSSRCs = (media: identifiers.videoSSRC, rtx: identifiers.rtxSSRC)
        var send: VideoSendConfiguration?
        if negotiation.plan.sendsVideo, !negotiation.sendingRefused, let accepted = answer.videoSend {
            send = VideoSendConfiguration(
                ssrc: videoSSRCs.media, rtxSSRC: videoSSRCs.rtx, payloadType: accepted.payloadType,
                rtxPayloadType: accepted.rtxPayloadType, transportCCExtensionId: accepted.transportCCExtensionId,
                cname: signaling.credentials.attendeeId, streamId: negotiation.sendStreamId,
                maximumBitrate: videoSendSettings.maximumBitrate, screenContent: videoSendSettings.screenContent)
            if !negotiation.plan.sendLayers.isEmpty, accepted.ridExtensionId != nil {
                send?.simulcast = SessionVideoCore.simulcastStreams(negotiation.plan.sendLayers, videoSSRCs: videoSSRCs)
                send?.ridExtensionId = accepted.ridExtensionId
                send?.repairedRidExtensionId = accepted.repairedRidExtensionId
            }
        }
        let tracks = negotiation.tracks.compactMap { track -> VideoReceiveTrack? in
            guard let line = answer.videoReceive.first(where: { $0.mid == track.mid }) else { return nil }
            return VideoReceiveTrack(
                mid: track.mid, streamId: track.streamId, groupId: track.groupId, attendeeId: track.attendeeId,
                ssrc: line.ssrc, rtxSSRC: line.rtxSSRC, payloadType: line.payloadType,
                rtxPayloadType: line.rtxPayloadType, transportCCExtensionId: line.transportCCExtensionId)
        }
        return carryOut(video.configure(send: send, receive: tracks, reportSSRC: identifiers.audioSSRC,
                                        now: now.monotonic), now: now)
    }

    /// Ends the media connection: the audio and video cores stop, the peer sends close_notify, the socket closes.
    func stopMedia(now: SessionTime) -> [SessionCoreEffect] {
        var effects = carryOut(media.stop(), now: now)
        effects += carryOut(video.stop(now: now.monotonic), now: now)
        mediaGeneration += 1
        pendingPlan = nil
        guard let connection else { return effects }
        self.connection = nil
        if let peer = connection.peer {
            effects += peer.close().datagrams.map { SessionCoreEffect.sendDatagram($0.0, to: $0.1) }
        }
        effects.append(.closeMediaSocket)
        return effects
    }
}
