import CarillonRTC

/// What the offer and answer agreed for the video m-line of `carillon peer`: payload types, SSRCs both ways, the
/// transport-wide sequence extension and the RTCP feedback either side may send.
///
/// Read from the answer's video m-line (in BUNDLE the answer keeps the offer's payload types and extension ids, and
/// lists only what both sides support) and the remote side's SSRC lines.
struct PeerVideoParameters: Sendable, Equatable {
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
    /// The other side's RTX SSRC from its FID group, if announced.
    var remoteRTXSSRC: UInt32?
    /// The id of the transport-wide sequence number extension, when transport-cc was agreed.
    var transportCCExtensionId: UInt8?
    /// Whether this side sends video on the m-line.
    var sends: Bool
    /// Whether this side receives video on the m-line.
    var receives: Bool
    /// Whether generic NACK was agreed (this side sends NACKs only then).
    var nack: Bool
    /// Whether PLI was agreed.
    var pictureLoss: Bool
    /// Whether FIR was agreed (used only when PLI was not).
    var fullIntra: Bool

    /// The parameters of the video m-line `mid`, given this side's m-line and the other side's; nil when either has
    /// no such m-line, or it was rejected, or it carries no VP8.
    init?(mid: String, local: SessionDescription, remote: SessionDescription, localIsOfferer: Bool,
          localSSRC: UInt32, localRTXSSRC: UInt32) {
        guard let localMedia = local.media.first(where: { $0.mid == mid && $0.kind == "video" && $0.port != 0 }),
              let remoteMedia = remote.media.first(where: { $0.mid == mid && $0.kind == "video" && $0.port != 0 })
        else { return nil }
        let answer = localIsOfferer ? remoteMedia : localMedia
        guard let (vp8, rtx) = VideoSessionDescription.vp8(in: answer) else { return nil }
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
        nack = vp8.feedback.contains("nack")
        pictureLoss = vp8.feedback.contains("nack pli")
        fullIntra = vp8.feedback.contains("ccm fir")
    }
}
