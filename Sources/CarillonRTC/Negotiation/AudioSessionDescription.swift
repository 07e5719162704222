/// Offers and answers for one Opus audio m-line over one BUNDLE transport with RTCP multiplexing.
///
/// The answer accepts the first audio m-line that offers Opus, with the offer's payload type, parameters and
/// header extension ids, and rejects every other m-line (port 0), as JSEP requires.
public enum AudioSessionDescription {
    /// The payload type this side offers for Opus (the one browsers use).
    public static let offeredOpusPayloadType: UInt8 = 111

    /// Header extensions this side accepts on audio, when the offer has them.
    public static let acceptedExtensions: Set<String> = [SDPExtension.midURI, SDPExtension.audioLevelURI]

    /// An offer with one `sendrecv` audio m-line (mid `0`) carrying `transport`, sending `ssrc`.
    public static func offer(transport: TransportDescription, ssrc: UInt32, cname: String = "carillon") -> SessionDescription {
        var audio = MediaDescription(kind: "audio", port: port(of: transport), formats: ["\(offeredOpusPayloadType)"])
        audio.connection = connection(of: transport)
        audio.mid = "0"
        audio.direction = .sendrecv
        audio.rtcpMux = true
        audio.codecs = [SDPCodec(payloadType: offeredOpusPayloadType, name: "opus", clockRate: 48_000, channels: 2,
                                 parameters: [.init(key: "minptime", value: "10"), .init(key: "useinbandfec", value: "1")])]
        audio.extensions = [SDPExtension(id: 1, uri: SDPExtension.audioLevelURI),
                            SDPExtension(id: 4, uri: SDPExtension.midURI)]
        addSender(to: &audio, ssrc: ssrc, cname: cname)
        transport.apply(to: &audio)
        var description = SessionDescription()
        description.iceLite = transport.iceLite
        description.bundleGroups = [["0"]]
        description.msidSemantic = "WMS carillon"
        description.media = [audio]
        return description
    }

    /// The answer to `offer`: its first Opus audio m-line accepted with `transport`, every other m-line rejected.
    public static func answer(to offer: SessionDescription, transport: TransportDescription, ssrc: UInt32,
                              cname: String = "carillon") throws(SDPNegotiationError) -> SessionDescription {
        var accepted: String?
        var media: [MediaDescription] = []
        for offered in offer.media {
            guard accepted == nil, let audio = answerMedia(offered, transport: transport, ssrc: ssrc, cname: cname) else {
                media.append(rejected(offered))
                continue
            }
            accepted = audio.mid
            media.append(audio)
        }
        guard let accepted else { throw .noCommonCodec("the offer has no audio m-line with Opus/48000") }
        var description = SessionDescription()
        description.iceLite = transport.iceLite
        description.bundleGroups = [[accepted]]
        description.msidSemantic = "WMS carillon"
        description.media = media
        return description
    }

    /// The answer to one offered m-line if it is an audio m-line with Opus and a mid: Opus alone with the offer's
    /// payload type, parameters and accepted header extension ids, sending `ssrc` when the offer receives.
    public static func answerMedia(_ offered: MediaDescription, transport: TransportDescription, ssrc: UInt32,
                                   cname: String = "carillon") -> MediaDescription? {
        let opus = offered.codecs.first { $0.name.lowercased() == "opus" && $0.clockRate == 48_000 }
        guard offered.kind == "audio", !offered.isRejected, let opus, let mid = offered.mid else { return nil }
        var audio = MediaDescription(kind: "audio", port: port(of: transport), proto: offered.proto,
                                     formats: ["\(opus.payloadType)"])
        audio.connection = connection(of: transport)
        audio.mid = mid
        audio.direction = offered.direction.reversed
        audio.rtcpMux = true
        audio.codecs = [SDPCodec(payloadType: opus.payloadType, name: opus.name, clockRate: 48_000,
                                 channels: opus.channels, parameters: opus.parameters)]
        audio.extensions = offered.extensions.filter { acceptedExtensions.contains($0.uri) }
            .map { SDPExtension(id: $0.id, uri: $0.uri) }
        if audio.direction.sends { addSender(to: &audio, ssrc: ssrc, cname: cname) }
        transport.apply(to: &audio)
        return audio
    }

    /// An offered m-line rejected in an answer: port 0, inactive, same mid.
    public static func rejected(_ offered: MediaDescription) -> MediaDescription {
        var rejected = MediaDescription(kind: offered.kind, port: 0, proto: offered.proto, formats: offered.formats)
        // Every media section needs a connection line when the session has none (RFC 8866 §5.7): Firefox refuses
        // an answer without one, even on a rejected section.
        rejected.connection = "IN IP4 0.0.0.0"
        rejected.mid = offered.mid
        rejected.direction = .inactive
        return rejected
    }

    /// The Opus payload type of the first accepted audio m-line.
    public static func opusPayloadType(in description: SessionDescription) throws(SDPNegotiationError) -> UInt8 {
        for media in description.media where media.kind == "audio" && media.port != 0 {
            if let opus = media.codecs.first(where: { $0.name.lowercased() == "opus" }) { return opus.payloadType }
        }
        throw .noCommonCodec("no accepted audio m-line with Opus")
    }

    private static func addSender(to media: inout MediaDescription, ssrc: UInt32, cname: String) {
        let msid = SDPMediaStreamID(streamId: "carillon", trackId: "audio")
        media.msid = [msid]
        media.ssrcs = [SDPSSRC(ssrc: ssrc, cname: cname, msid: msid)]
    }

    static func port(of transport: TransportDescription) -> UInt16 {
        transport.candidates.first?.port ?? 9
    }

    static func connection(of transport: TransportDescription) -> String {
        guard let address = transport.candidates.first?.address else { return "IN IP4 0.0.0.0" }
        return address.contains(":") ? "IN IP6 \(address)" : "IN IP4 \(address)"
    }
}
