import CarillonMedia
import CarillonRTC

/// What the offer and answer agreed for the video m-line of `carillon peer`: payload types, SSRCs both ways, the
/// transport-wide sequence extension and which ways video goes; made into the SDK streams' configuration
/// (``sendConfiguration(bitrate:)``, ``receiveTrack(ssrc:rtxSSRC:)``).
///
/// Read from the answer's video m-line (in BUNDLE the answer keeps the offer's payload types and extension ids, and
/// lists only what both sides support) and the remote side's SSRC lines.
struct PeerVideoParameters: Sendable, Equatable {
    /// The m-line's mid.
    var mid: String
    /// VP8's payload type, both ways.
    var payloadType: UInt8
    /// The RTX payload type paired with VP8, when RTX was agreed.
    var rtxPayloadType: UInt8?
    /// The SSRC this side sends VP8 from.
    var localSSRC: UInt32
    /// This side's RTX SSRC, used only when RTX was agreed.
    var localRTXSSRC: UInt32
    /// The SSRC the other side announced for its video, if it did (otherwise learnt from the first packet).
    var remoteSSRC: UInt32?
    /// The other side's RTX SSRC from its FID group, if announced (otherwise learnt from the first RTX packet).
    var remoteRTXSSRC: UInt32?
    /// The id of the transport-wide sequence number extension, when transport-cc was agreed.
    var transportCCExtensionId: UInt8?
    /// Whether this side sends video on the m-line.
    var sends: Bool
    /// Whether this side receives video on the m-line.
    var receives: Bool

    /// The parameters of the video m-line `mid`, given this side's m-line and the other side's; nil when either has
    /// no such m-line, or it was rejected, or it carries no VP8.
    init?(mid: String, local: SessionDescription, remote: SessionDescription, localIsOfferer: Bool,
          localSSRC: UInt32, localRTXSSRC: UInt32) {
        guard let localMedia = local.media.first(where: { $0.mid == mid && $0.kind == "video" && $0.port != 0 }),
              let remoteMedia = remote.media.first(where: { $0.mid == mid && $0.kind == "video" && $0.port != 0 })
        else { return nil }
        let answer = localIsOfferer ? remoteMedia : localMedia
        guard let (vp8, rtx) = VideoSessionDescription.vp8(in: answer) else { return nil }
        self.mid = mid
        payloadType = vp8.payloadType
        rtxPayloadType = rtx?.payloadType
        self.localSSRC = localSSRC
        self.localRTXSSRC = localRTXSSRC
        let fid = remoteMedia.ssrcGroups.first { $0.semantics == "FID" && $0.ssrcs.count == 2 }
        remoteSSRC = fid?.ssrcs[0] ?? remoteMedia.ssrcs.first?.ssrc
        remoteRTXSSRC = fid?.ssrcs[1]
        let transportCC = answer.extensions.first { $0.uri == SDPExtension.transportWideCCURI }
        transportCCExtensionId = vp8.feedback.contains("transport-cc") ? transportCC?.id : nil
        // The directions are each side's own view: this side sends when its m-line says so and the other receives.
        sends = localMedia.direction.sends && remoteMedia.direction.receives
        receives = localMedia.direction.receives && remoteMedia.direction.sends
    }

    /// How the SDK's send stream sends the pattern: one VP8 stream capped at `bitrate` bit/s, repaired over RTX when
    /// agreed, estimated from transport-wide feedback when agreed (else from report blocks and REMB); nil when this
    /// side does not send.
    func sendConfiguration(bitrate: Int) -> VideoSendConfiguration? {
        guard sends else { return nil }
        return VideoSendConfiguration(ssrc: localSSRC, rtxSSRC: localRTXSSRC, payloadType: payloadType,
                                      rtxPayloadType: rtxPayloadType, transportCCExtensionId: transportCCExtensionId,
                                      cname: PeerVideo.cname, maximumBitrate: bitrate, screenContent: false)
    }

    /// The received stream on `ssrc` (repaired on `rtxSSRC`) as the SDK's receive streams take it: one video, id 1.
    func receiveTrack(ssrc: UInt32, rtxSSRC: UInt32?) -> VideoReceiveTrack {
        VideoReceiveTrack(mid: mid, streamId: 1, attendeeId: "remote", ssrc: ssrc, rtxSSRC: rtxSSRC,
                          payloadType: payloadType, rtxPayloadType: rtxPayloadType,
                          transportCCExtensionId: transportCCExtensionId)
    }
}
