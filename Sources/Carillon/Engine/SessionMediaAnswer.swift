import CarillonRTC

/// The client's reading of the server's SDP answer, sans-IO: the peer connection to run (a controlling ICE agent
/// towards the answer's candidates, DTLS as negotiated from this side's `actpass`), what the audio needs, and what
/// the video m-lines became.
struct SessionMediaAnswer {
    /// How the camera m-line was accepted (the server receives on it).
    struct VideoSend: Sendable, Equatable {
        var payloadType: UInt8
        var rtxPayloadType: UInt8?
        var transportCCExtensionId: UInt8?
        var feedback: Set<String>
        /// The `rtp-stream-id` extension's id, when the server accepted rid simulcast.
        var ridExtensionId: UInt8? = nil
        /// The `repaired-rtp-stream-id` extension's id, when the server accepted it.
        var repairedRidExtensionId: UInt8? = nil
    }

    /// One receive m-line the server sends on.
    struct VideoReceive: Sendable, Equatable {
        var mid: String
        var payloadType: UInt8
        var rtxPayloadType: UInt8?
        var ssrc: UInt32
        var rtxSSRC: UInt32?
        /// The transport-wide sequence number extension's id, when the m-line negotiated transport-cc: the session
        /// then sends transport-wide feedback about what it receives.
        var transportCCExtensionId: UInt8? = nil
    }

    /// The peer connection to run.
    let configuration: PeerConnectionConfiguration
    /// The Opus payload type the answer kept.
    let opusPayloadType: UInt8
    /// The negotiated id of the `ssrc-audio-level` extension, nil when the answer dropped it.
    let audioLevelExtensionId: UInt8?
    /// The camera m-line, when the server accepted video on it; nil when it answered it inactive or rejected it.
    let videoSend: VideoSend?
    /// The receive m-lines the server sends a stream on, with the SSRCs it declared.
    let videoReceive: [VideoReceive]

    /// Reads `answer` to the offer made with `local`; throws a typed SDP or negotiation error when it is unusable.
    init(answer text: String, local: TransportDescription, certificate: DTLSCertificate) throws {
        let answer = try SessionDescription(parsing: text)
        let remote = try TransportDescription(remote: answer)
        opusPayloadType = try AudioSessionDescription.opusPayloadType(in: answer)
        audioLevelExtensionId = answer.media.first { $0.kind == "audio" && $0.port != 0 }?
            .extensionId(for: SDPExtension.audioLevelURI)
        configuration = PeerConnectionConfiguration(
            iceRole: .controlling(remoteCandidates: remote.udpAddresses()), localICE: local.ice,
            remoteICE: remote.ice, dtlsRole: TransportDescription.dtlsRole(local: .actpass, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint)
        var send: VideoSend?
        var receive: [VideoReceive] = []
        for media in answer.media where media.kind == "video" && media.port != 0 {
            guard let (vp8, rtx) = VideoSessionDescription.vp8(in: media) else { continue }
            if media.mid == SessionMediaPlan.cameraMid, media.direction.receives {
                send = VideoSend(payloadType: vp8.payloadType, rtxPayloadType: rtx?.payloadType,
                                 transportCCExtensionId: media.extensionId(for: SDPExtension.transportWideCCURI),
                                 feedback: Set(vp8.feedback),
                                 ridExtensionId: media.extensionId(for: SDPExtension.ridURI),
                                 repairedRidExtensionId: media.extensionId(for: SDPExtension.repairedRidURI))
            } else if media.direction.sends, let mid = media.mid {
                let fid = media.retransmissionSSRCs
                guard let ssrc = fid?.media ?? media.ssrcs.first?.ssrc else { continue }
                receive.append(VideoReceive(mid: mid, payloadType: vp8.payloadType, rtxPayloadType: rtx?.payloadType,
                                            ssrc: ssrc, rtxSSRC: fid?.rtx,
                                            transportCCExtensionId: vp8.feedback.contains("transport-cc")
                                                ? media.extensionId(for: SDPExtension.transportWideCCURI) : nil))
            }
        }
        videoSend = send
        videoReceive = receive
    }
}
