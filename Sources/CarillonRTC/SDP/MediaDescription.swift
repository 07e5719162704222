/// One media section (`m=` and what follows it up to the next `m=`) of a session description.
public struct MediaDescription: Sendable, Equatable, Hashable {
    /// `audio`, `video` or `application`.
    public var kind: String
    /// Port; 0 means rejected or stopped, 9 is the browsers' placeholder.
    public var port: UInt16
    /// The `/<number of ports>` suffix of the port, nil when absent (it is for multicast; WebRTC never uses it).
    public var numberOfPorts: UInt16?
    /// Transport protocol, e.g. `UDP/TLS/RTP/SAVPF` or `UDP/DTLS/SCTP`.
    public var proto: String
    /// Formats in m-line order: payload types as text for RTP, `webrtc-datachannel` for data channels.
    ///
    /// When this is empty the serializer writes the codecs' payload types instead.
    public var formats: [String]
    /// The `c=` value, e.g. `IN IP4 0.0.0.0`; may be absent when bundled.
    public var connection: String?
    /// `a=mid`.
    public var mid: String?
    /// The direction attribute; `sendrecv` when absent.
    public var direction: SDPDirection
    /// `a=ice-ufrag`.
    public var iceUsernameFragment: String?
    /// `a=ice-pwd`.
    public var icePassword: String?
    /// `a=ice-options` tokens (`trickle`, `renomination`, …).
    public var iceOptions: [String]
    /// The first `a=fingerprint` (further ones stay in `otherAttributes`).
    public var fingerprint: DTLSFingerprintLine?
    /// `a=setup`.
    public var setup: SDPSetupRole?
    /// `a=rtcp-mux`.
    public var rtcpMux: Bool
    /// `a=rtcp-rsize`.
    public var rtcpReducedSize: Bool
    /// `a=candidate` lines in order.
    public var candidates: [ICECandidate]
    /// `a=end-of-candidates`.
    public var endOfCandidates: Bool
    /// Codecs in m-line format order, built from `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` (static payload types without an
    /// rtpmap get their RFC 3551 encoding). Empty for non-RTP sections.
    public var codecs: [SDPCodec]
    /// `a=extmap` lines in order.
    public var extensions: [SDPExtension]
    /// `a=msid` lines in order.
    public var msid: [SDPMediaStreamID]
    /// `a=ssrc` lines grouped per SSRC, in order of first appearance.
    public var ssrcs: [SDPSSRC]
    /// `a=ssrc-group` lines in order.
    public var ssrcGroups: [SDPSSRCGroup]
    /// `a=rid` lines in order.
    public var rids: [SDPRid]
    /// The first `a=simulcast`.
    public var simulcast: SDPSimulcast?
    /// Every other attribute in order, `a=rtcp` first (e.g. `rtcp:9 IN IP4 0.0.0.0`, `sctp-port:5000`,
    /// `max-message-size:262144`, `extmap-allow-mixed`); also `a=fmtp`/`a=rtcp-fb` for an m-line payload type
    /// that has no rtpmap and no static encoding.
    public var otherAttributes: [SDPAttribute]
    /// Lines other than `c=` and `a=` (`i=`, `b=`, `k=`, …) in RFC 8866 order.
    public var otherLines: [SDPLine]

    /// Creates a media section.
    public init(kind: String, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String] = [],
                connection: String? = nil, mid: String? = nil, direction: SDPDirection = .sendrecv,
                iceUsernameFragment: String? = nil, icePassword: String? = nil, iceOptions: [String] = [],
                fingerprint: DTLSFingerprintLine? = nil, setup: SDPSetupRole? = nil, rtcpMux: Bool = false,
                rtcpReducedSize: Bool = false, candidates: [ICECandidate] = [], endOfCandidates: Bool = false,
                codecs: [SDPCodec] = [], extensions: [SDPExtension] = [], msid: [SDPMediaStreamID] = [],
                ssrcs: [SDPSSRC] = [], ssrcGroups: [SDPSSRCGroup] = [], rids: [SDPRid] = [], simulcast: SDPSimulcast? = nil,
                otherAttributes: [SDPAttribute] = [], otherLines: [SDPLine] = [], numberOfPorts: UInt16? = nil) {
        self.kind = kind
        self.port = port
        self.numberOfPorts = numberOfPorts
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.mid = mid
        self.direction = direction
        self.iceUsernameFragment = iceUsernameFragment
        self.icePassword = icePassword
        self.iceOptions = iceOptions
        self.fingerprint = fingerprint
        self.setup = setup
        self.rtcpMux = rtcpMux
        self.rtcpReducedSize = rtcpReducedSize
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
        self.codecs = codecs
        self.extensions = extensions
        self.msid = msid
        self.ssrcs = ssrcs
        self.ssrcGroups = ssrcGroups
        self.rids = rids
        self.simulcast = simulcast
        self.otherAttributes = otherAttributes
        self.otherLines = otherLines
    }

    /// Whether the transport carries RTP (the proto contains `RTP/`), so formats are payload types.
    public var isRTP: Bool { Self.isRTP(proto: proto) }

    static func isRTP(proto: some StringProtocol) -> Bool { proto.uppercased().contains("RTP/") }

    /// Whether the section is offered `a=bundle-only`: port 0, to be used only inside its BUNDLE group (RFC 8843
    /// §6), as Firefox offers every section after the first under `max-bundle`.
    public var isBundleOnly: Bool { otherAttributes.contains { $0.name == "bundle-only" && $0.value == nil } }

    /// Whether the section is rejected or stopped: port 0, and not a bundle-only section.
    public var isRejected: Bool { port == 0 && !isBundleOnly }

    /// The codec with this payload type.
    public func codec(payloadType: UInt8) -> SDPCodec? { codecs.first { $0.payloadType == payloadType } }

    /// The RTX codecs paired with their media payload types: `(rtx, apt)`.
    public var retransmissionPairs: [(rtx: UInt8, apt: UInt8)] {
        codecs.compactMap { codec in codec.isRetransmission ? codec.apt.map { (codec.payloadType, $0) } : nil }
    }

    /// The id negotiated for a header extension URI.
    public func extensionId(for uri: String) -> UInt8? { extensions.first { $0.uri == uri }?.id }

    /// The values of generic attributes with this name, in order.
    public func attributeValues(_ name: String) -> [String?] { otherAttributes.filter { $0.name == name }.map(\.value) }

    /// The first `a=ssrc-group:FID` as `(media, rtx)`.
    public var retransmissionSSRCs: (media: UInt32, rtx: UInt32)? {
        guard let group = ssrcGroups.first(where: { $0.semantics == "FID" && $0.ssrcs.count >= 2 }) else { return nil }
        return (group.ssrcs[0], group.ssrcs[1])
    }
}
