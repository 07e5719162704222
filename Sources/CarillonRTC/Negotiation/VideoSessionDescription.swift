/// Answers for video m-lines carrying VP8 (RFC 7741) with RTX (RFC 4588), the one video codec Carillon sends and
/// receives.
///
/// An answered m-line keeps the offer's payload types and header extension ids, keeps only VP8 and the RTX codec
/// paired with it, and only the RTCP feedback this side implements (`video.md` §1.2, `signaling.md` §4.3, §4.7).
public enum VideoSessionDescription {
    /// What this side sends on an m-line: its SSRCs and the `a=msid` of its track.
    public struct Sender: Sendable, Equatable {
        /// The media SSRC.
        public var ssrc: UInt32
        /// The RTX SSRC, when RTX was negotiated.
        public var rtxSSRC: UInt32?
        /// The msid stream id (Chime's track label: `v_<mid>`).
        public var streamId: String
        /// The msid track id.
        public var trackId: String
        /// The RTCP CNAME.
        public var cname: String

        /// Creates a sender description.
        public init(ssrc: UInt32, rtxSSRC: UInt32?, streamId: String, trackId: String, cname: String = "carillon") {
            self.ssrc = ssrc
            self.rtxSSRC = rtxSSRC
            self.streamId = streamId
            self.trackId = trackId
            self.cname = cname
        }
    }

    /// Header extensions accepted on video, when offered.
    public static let acceptedExtensions: Set<String> = [
        SDPExtension.midURI, SDPExtension.transportWideCCURI, SDPExtension.absoluteSendTimeURI,
    ]
    /// RTCP feedback accepted on VP8, when offered.
    public static let acceptedFeedback: Set<String> = ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"]

    /// The payload type this side offers for VP8.
    public static let offeredPayloadType: UInt8 = 96
    /// The payload type this side offers for VP8's RTX.
    public static let offeredRTXPayloadType: UInt8 = 97
    /// The header extension ids this side offers on video (the same ids as on audio for the same URI, as BUNDLE
    /// requires).
    public static let offeredExtensions = [
        SDPExtension(id: 3, uri: SDPExtension.transportWideCCURI), SDPExtension(id: 4, uri: SDPExtension.midURI),
    ]

    /// A video m-line of an offer: VP8 and its RTX with NACK, PLI, FIR, REMB and transport-wide feedback, in
    /// `direction`; with `sender`, this side's SSRCs (FID group) and msid.
    public static func offerMedia(mid: String, direction: SDPDirection, transport: TransportDescription,
                                  sender: Sender?) -> MediaDescription {
        let vp8 = SDPCodec(payloadType: offeredPayloadType, name: "VP8", clockRate: 90_000,
                           feedback: ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"])
        let rtx = SDPCodec(payloadType: offeredRTXPayloadType, name: "rtx", clockRate: 90_000,
                           parameters: [.init(key: "apt", value: "\(offeredPayloadType)")])
        var video = MediaDescription(kind: "video", port: AudioSessionDescription.port(of: transport),
                                     formats: ["\(offeredPayloadType)", "\(offeredRTXPayloadType)"])
        video.connection = AudioSessionDescription.connection(of: transport)
        video.mid = mid
        video.direction = direction
        video.rtcpMux = true
        video.rtcpReducedSize = true
        video.codecs = [vp8, rtx]
        video.extensions = offeredExtensions
        if let sender { declare(sender, on: &video) }
        transport.apply(to: &video)
        return video
    }

    /// The VP8 codec of a video m-line and the RTX codec paired with it, if any.
    public static func vp8(in media: MediaDescription) -> (codec: SDPCodec, rtx: SDPCodec?)? {
        guard let vp8 = media.codecs.first(where: { $0.name.lowercased() == "vp8" && $0.clockRate == 90_000 }) else {
            return nil
        }
        return (vp8, media.codecs.first { $0.isRetransmission && $0.apt == vp8.payloadType })
    }

    /// The answer to one offered video m-line with VP8 and its RTX only, in `direction`; with `sender`, the m-line
    /// declares this side's SSRCs (and their FID group) and msid. Nil when the offer has no VP8 or no mid.
    public static func answerMedia(_ offered: MediaDescription, transport: TransportDescription,
                                   direction: SDPDirection, sender: Sender?) -> MediaDescription? {
        guard offered.kind == "video", !offered.isRejected, let mid = offered.mid, let (vp8, rtx) = vp8(in: offered) else {
            return nil
        }
        var codecs = [SDPCodec(payloadType: vp8.payloadType, name: vp8.name, clockRate: 90_000,
                               parameters: vp8.parameters.filter { $0.key != "x-google-start-bitrate" },
                               feedback: vp8.feedback.filter { acceptedFeedback.contains($0) })]
        if let rtx { codecs.append(SDPCodec(payloadType: rtx.payloadType, name: rtx.name, clockRate: 90_000,
                                            parameters: [.init(key: "apt", value: "\(vp8.payloadType)")])) }
        var video = MediaDescription(kind: "video", port: AudioSessionDescription.port(of: transport),
                                     proto: offered.proto, formats: codecs.map { "\($0.payloadType)" })
        video.connection = AudioSessionDescription.connection(of: transport)
        video.mid = mid
        video.direction = direction
        video.rtcpMux = true
        video.rtcpReducedSize = offered.rtcpReducedSize
        video.codecs = codecs
        video.extensions = offered.extensions.filter { acceptedExtensions.contains($0.uri) }
            .map { SDPExtension(id: $0.id, uri: $0.uri) }
        if let sender {
            declare(rtx == nil ? Sender(ssrc: sender.ssrc, rtxSSRC: nil, streamId: sender.streamId,
                                        trackId: sender.trackId, cname: sender.cname) : sender, on: &video)
        }
        transport.apply(to: &video)
        return video
    }

    /// Writes a sender's msid, SSRCs and FID group.
    private static func declare(_ sender: Sender, on video: inout MediaDescription) {
        let msid = SDPMediaStreamID(streamId: sender.streamId, trackId: sender.trackId)
        video.msid = [msid]
        video.ssrcs = [SDPSSRC(ssrc: sender.ssrc, cname: sender.cname, msid: msid)]
        if let rtxSSRC = sender.rtxSSRC {
            video.ssrcs.append(SDPSSRC(ssrc: rtxSSRC, cname: sender.cname, msid: msid))
            video.ssrcGroups = [SDPSSRCGroup(semantics: "FID", ssrcs: [sender.ssrc, rtxSSRC])]
        }
    }
}
