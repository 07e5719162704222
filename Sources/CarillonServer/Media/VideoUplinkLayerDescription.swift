import CarillonRTC

/// One simulcast layer of a camera m-line as an offer describes it (`video.md` §3, `signaling.md` §4.9): named by its
/// rid (`a=rid` + `a=simulcast`; its SSRC is learned from the `rtp-stream-id` extension of the first packets) or by
/// its SSRC (`a=ssrc-group:SIM`, RTX from the FID groups), and the stream id SUBSCRIBE gave it.
///
/// Built once per negotiation; a value type, no threading concerns.
struct VideoUplinkLayerDescription: Equatable {
    /// The rid, for rid simulcast.
    var rid: String?
    /// The media SSRC, when the offer declares it.
    var ssrc: UInt32?
    /// The RTX SSRC, when the offer declares it.
    var rtxSSRC: UInt32?
    /// The stream id of SUBSCRIBE `send_streams` at the layer's position, 0 when SUBSCRIBE has fewer entries.
    var streamId: UInt32
    /// Its size and frame rate as SUBSCRIBE announced them, when it did.
    var format: VideoSubscribeRequest.StreamFormat?

    /// The layers of an offered camera m-line, lowest first: its simulcast rids, else its SIM group, else one layer
    /// (the FID group's or first SSRC, or none: learned from the first packet); each with the stream id and format of
    /// SUBSCRIBE `send_streams` at its position.
    static func layers(offered: MediaDescription, streamIds: [UInt32],
                       formats: [VideoSubscribeRequest.StreamFormat] = []) -> [VideoUplinkLayerDescription] {
        var layers = described(offered: offered, streamIds: streamIds)
        for index in layers.indices where index < formats.count { layers[index].format = formats[index] }
        return layers
    }

    private static func described(offered: MediaDescription, streamIds: [UInt32]) -> [VideoUplinkLayerDescription] {
        func streamId(_ index: Int) -> UInt32 { index < streamIds.count ? streamIds[index] : 0 }
        if let simulcast = offered.simulcast, !simulcast.sendRids.isEmpty {
            return simulcast.sendRids.enumerated().map { VideoUplinkLayerDescription(rid: $1, streamId: streamId($0)) }
        }
        let fids = offered.ssrcGroups.filter { $0.semantics == "FID" && $0.ssrcs.count >= 2 }
        if let sim = offered.ssrcGroups.first(where: { $0.semantics == "SIM" && $0.ssrcs.count > 1 }) {
            return sim.ssrcs.enumerated().map { index, ssrc in
                VideoUplinkLayerDescription(ssrc: ssrc, rtxSSRC: fids.first { $0.ssrcs[0] == ssrc }?.ssrcs[1],
                                            streamId: streamId(index))
            }
        }
        let fid = offered.retransmissionSSRCs
        return [VideoUplinkLayerDescription(ssrc: fid?.media ?? offered.ssrcs.first?.ssrc, rtxSSRC: fid?.rtx,
                                            streamId: streamId(0))]
    }

    /// Completes the answer to a camera m-line that offers rid simulcast: `a=rid:<rid> recv` per offered rid,
    /// `a=simulcast:recv` with the offered list, and the rid header extensions (the only way to tell the layers apart).
    static func answerSimulcast(_ offered: MediaDescription, in answer: inout MediaDescription) {
        guard let simulcast = offered.simulcast, !simulcast.sendRids.isEmpty else { return }
        answer.rids = simulcast.sendRids.map { SDPRid(id: $0, direction: .recv) }
        answer.simulcast = SDPSimulcast(receive: simulcast.send.map { $0.map { SDPSimulcast.Alternative(rid: $0.rid) } })
        for uri in [SDPExtension.ridURI, SDPExtension.repairedRidURI] {
            if let offeredExtension = offered.extensions.first(where: { $0.uri == uri }) {
                answer.extensions.append(SDPExtension(id: offeredExtension.id, uri: uri))
            }
        }
    }
}
