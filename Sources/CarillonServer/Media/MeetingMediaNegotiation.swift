import CarillonRTC
import NIOCore

/// The server's side of one SUBSCRIBE offer/answer, sans-IO: the SDP answer and everything the session's peer
/// connection and the media core need from it.
///
/// The first Opus audio m-line is accepted. Video m-lines are answered with VP8 and its RTX only: the camera m-line
/// (the client sends) in the reverse of the offered direction when the session may send video, else inactive; each
/// `recvonly` m-line that the request gives a live stream as `sendonly` with this server's SSRCs and the msid
/// `v_<mid>`, else inactive; anything else is rejected. The server is ICE-lite with the media port as its only
/// candidate, and the DTLS server unless the client insists on that role (it offers actpass).
///
/// A re-offer on the same transport (the same remote ICE credentials and fingerprint, as a browser's renegotiation
/// sends) keeps the local ICE credentials, DTLS role and every SSRC, so the running connection carries on.
package struct MeetingMediaNegotiation {
    /// The session's camera stream as negotiated on its camera m-line.
    struct VideoUplink: Equatable {
        let mid: String
        let payloadType: UInt8
        let rtxPayloadType: UInt8?
        /// The SSRCs the offer declares (`a=ssrc-group:FID` or the first `a=ssrc`), when it declares them.
        let ssrc: UInt32?
        let rtxSSRC: UInt32?
        let transportCCExtensionId: UInt8?
        let feedback: Set<String>
        /// Ask for a key frame at least this often (content shares), nil for on demand only.
        var keyFrameInterval: TimeAmount? = nil
        /// The simulcast layers, lowest first (`a=simulcast` rid order, or `a=ssrc-group:SIM` order); one layer (the
        /// m-line's stream) without simulcast. Layer *i* is SUBSCRIBE `send_streams` entry *i*.
        var layers: [VideoUplinkLayerDescription] = []
        /// The ids of the `rtp-stream-id` and `repaired-rtp-stream-id` extensions, when a rid simulcast negotiated them.
        var ridExtensionId: UInt8? = nil
        var repairedRidExtensionId: UInt8? = nil

        /// The uplink with its layers' announced formats left out: what identifies the camera (a renegotiation that
        /// changes only the formats keeps the router's state for it, SSRCs learned from rids included).
        var withoutFormats: VideoUplink {
            var copy = self
            for index in copy.layers.indices { copy.layers[index].format = nil }
            return copy
        }
    }

    /// One receive m-line that carries a remote stream.
    struct VideoDownlink: Equatable {
        let mid: String
        let source: VideoSourceReference
        let payloadType: UInt8
        let rtxPayloadType: UInt8?
        let ssrc: UInt32
        let rtxSSRC: UInt32?
        let feedback: Set<String>
        /// The id of the transport-wide sequence number extension, when the m-line negotiated it and `transport-cc`.
        var transportCCExtensionId: UInt8? = nil
        /// The id of the MID extension, when the m-line negotiated it: every forwarded packet names its m-line, so a
        /// receiver demultiplexes by it (RFC 8843 §9.2) before the answer's SSRCs are applied.
        var midExtensionId: UInt8? = nil
    }

    /// The SDP answer for SUBSCRIBE_ACK.
    let answer: String
    /// The peer connection to run for the session.
    let configuration: PeerConnectionConfiguration
    /// The SSRC this server sends the session's audio with.
    let ssrc: UInt32
    /// The Opus payload type the offer chose.
    let opusPayloadType: UInt8
    /// The negotiated id of the `ssrc-audio-level` extension, nil when the offer had none.
    let audioLevelExtensionId: UInt8?
    /// The session's camera, when it may send video.
    let videoUplink: VideoUplink?
    /// The remote streams the session receives, one per carrying m-line.
    let videoDownlinks: [VideoDownlink]
    /// Whether the offer continues `previous`'s transport (the peer connection is kept).
    let continuesTransport: Bool
    /// The request's server-side adaptation preferences by mid (``VideoSubscribeRequest/preferences``).
    let videoPreferences: [String: VideoDownlinkPreference]?

    /// SUBSCRIBE_ACK `tracks`.
    var tracks: [SubscribeAnswer.Track] {
        videoDownlinks.map { SubscribeAnswer.Track(mid: $0.mid, streamId: $0.source.streamId, ssrc: $0.ssrc) }
    }

    /// Answers `offer`; throws a typed SDP or negotiation error when it cannot be answered. `previous` is the last
    /// negotiation on the same socket, if any; `makeSSRC` chooses each new SSRC (random; fixed by tests).
    package init(offer text: String, certificate: DTLSCertificate, candidate: STUNAddress,
                 video: VideoSubscribeRequest = VideoSubscribeRequest(), previous: MeetingMediaNegotiation? = nil,
                 makeSSRC: () -> UInt32 = { .random(in: 1...UInt32.max) }) throws {
        let offer = try SessionDescription(parsing: text)
        let remote = try TransportDescription(remote: offer)
        let continues = previous.map {
            $0.configuration.remoteICE == remote.ice && $0.configuration.remoteFingerprint == remote.fingerprint
        } ?? false
        let local: TransportDescription
        if continues, let previous {
            local = TransportDescription(
                ice: previous.configuration.localICE, fingerprint: certificate.fingerprint,
                setup: previous.configuration.dtlsRole == .client ? .active : .passive,
                candidates: [TransportDescription.hostCandidate(for: candidate)], iceLite: true)
        } else {
            local = TransportDescription(
                ice: .random(), fingerprint: certificate.fingerprint,
                setup: remote.setup == .passive ? .active : .passive,
                candidates: [TransportDescription.hostCandidate(for: candidate)], iceLite: true)
        }
        let ssrc = continues ? previous!.ssrc : makeSSRC()
        let previousDownlinks = continues ? previous!.videoDownlinks : []

        var media: [MediaDescription] = []
        var audioAccepted = false
        var uplink: VideoUplink?
        var downlinks: [VideoDownlink] = []
        var videoIndex = 0
        for offered in offer.media {
            if offered.kind == "video" {
                let wanted = videoIndex < video.receive.count ? video.receive[videoIndex] : nil
                videoIndex += 1
                var answered: MediaDescription?
                let clientSends = offered.direction == .sendrecv || offered.direction == .sendonly
                if clientSends, video.sending == .allowed, uplink == nil {
                    answered = VideoSessionDescription.answerMedia(offered, transport: local,
                                                                   direction: offered.direction.reversed, sender: nil)
                    if answered != nil { VideoUplinkLayerDescription.answerSimulcast(offered, in: &answered!) }
                    if let answered, let (vp8, rtx) = VideoSessionDescription.vp8(in: offered) {
                        let fid = offered.retransmissionSSRCs
                        uplink = VideoUplink(
                            mid: answered.mid ?? "", payloadType: vp8.payloadType, rtxPayloadType: rtx?.payloadType,
                            ssrc: fid?.media ?? offered.ssrcs.first?.ssrc, rtxSSRC: fid?.rtx,
                            transportCCExtensionId: answered.extensionId(for: SDPExtension.transportWideCCURI),
                            feedback: Set(answered.codecs.first?.feedback ?? []),
                            keyFrameInterval: video.keyFrameInterval,
                            layers: VideoUplinkLayerDescription.layers(offered: offered, streamIds: video.sendStreamIds,
                                                                       formats: video.sendStreamFormats),
                            ridExtensionId: answered.extensionId(for: SDPExtension.ridURI),
                            repairedRidExtensionId: answered.extensionId(for: SDPExtension.repairedRidURI))
                    }
                } else if offered.direction == .recvonly, let wanted {
                    let mid = offered.mid ?? ""
                    let kept = previousDownlinks.first { $0.mid == mid }
                    let downSSRC = kept?.ssrc ?? makeSSRC()
                    let rtxSSRC = kept?.rtxSSRC ?? makeSSRC()
                    let sender = VideoSessionDescription.Sender(ssrc: downSSRC, rtxSSRC: rtxSSRC, streamId: "v_\(mid)",
                                                                trackId: "v_\(mid)-video")
                    answered = VideoSessionDescription.answerMedia(offered, transport: local, direction: .sendonly,
                                                                   sender: sender)
                    if let answered, let (vp8, rtx) = VideoSessionDescription.vp8(in: offered) {
                        let feedback = Set(answered.codecs.first?.feedback ?? [])
                        downlinks.append(VideoDownlink(
                            mid: mid, source: wanted, payloadType: vp8.payloadType, rtxPayloadType: rtx?.payloadType,
                            ssrc: downSSRC, rtxSSRC: rtx == nil ? nil : rtxSSRC, feedback: feedback,
                            transportCCExtensionId: feedback.contains("transport-cc")
                                ? answered.extensionId(for: SDPExtension.transportWideCCURI) : nil,
                            midExtensionId: answered.extensionId(for: SDPExtension.midURI)))
                    }
                }
                // A video m-line this server does not use stays in the bundle, inactive (or rejected without VP8). A
                // camera offered with rid simulcast while it is off (or refused) still has its rids and their header
                // extensions answered: Chromium refuses a later offer that turns it on otherwise ("negotiates
                // simulcast but does not negotiate the RID RTP header extension").
                if answered == nil,
                   var inactive = VideoSessionDescription.answerMedia(offered, transport: local, direction: .inactive,
                                                                      sender: nil) {
                    VideoUplinkLayerDescription.answerSimulcast(offered, in: &inactive)
                    answered = inactive
                }
                media.append(answered ?? AudioSessionDescription.rejected(offered))
            } else if !audioAccepted,
                      let audio = AudioSessionDescription.answerMedia(offered, transport: local, ssrc: ssrc,
                                                                      cname: "carillon") {
                audioAccepted = true
                media.append(audio)
            } else {
                media.append(AudioSessionDescription.rejected(offered))
            }
        }
        guard audioAccepted else { throw SDPNegotiationError.noCommonCodec("the offer has no audio m-line with Opus/48000") }
        var answer = SessionDescription()
        answer.iceLite = true
        answer.bundleGroups = [media.filter { $0.port != 0 }.compactMap(\.mid)]
        answer.msidSemantic = "WMS carillon"
        answer.media = media

        configuration = PeerConnectionConfiguration(
            iceRole: .lite, localICE: local.ice, remoteICE: remote.ice,
            dtlsRole: TransportDescription.dtlsRole(local: local.setup, remote: remote.setup),
            certificate: certificate, remoteFingerprint: remote.fingerprint)
        self.answer = answer.serialized
        self.ssrc = ssrc
        opusPayloadType = try AudioSessionDescription.opusPayloadType(in: answer)
        audioLevelExtensionId = answer.media.first { $0.kind == "audio" && $0.port != 0 }?
            .extensionId(for: SDPExtension.audioLevelURI)
        videoUplink = uplink
        videoDownlinks = downlinks
        continuesTransport = continues
        videoPreferences = video.preferences
    }
}
