import CarillonRTC

/// What a session's offer contains, as the signaling core decides it: whether the camera m-line sends, and which
/// remote stream each receive m-line asks for.
///
/// The m-lines are fixed by position so renegotiations keep every mid: audio `0`, the camera `1`, then receive slot
/// *i* as mid `2 + i` (recvonly when it has a stream, inactive when its stream went away; slots are reused).
struct SessionMediaPlan: Sendable, Equatable {
    /// Whether the camera m-line sends video.
    var sendsVideo = false
    /// The stream id wanted on each receive m-line; 0 leaves the m-line inactive.
    var receiveSlots: [UInt32] = []

    /// The mid of receive slot `index`.
    static func receiveMid(_ index: Int) -> String { "\(index + 2)" }
    /// The mid of the camera m-line.
    static let cameraMid = "1"

    /// SUBSCRIBE `receive_stream_ids`: one per video m-line in SDP order (the camera's is 0).
    var receiveStreamIds: [UInt32] { [0] + receiveSlots }

    /// The offer for this plan over `transport`: audio sending `audioSSRC`, the camera sending `videoSSRCs` when
    /// ``sendsVideo``, and the receive m-lines.
    func offer(transport: TransportDescription, audioSSRC: UInt32, videoSSRCs: (media: UInt32, rtx: UInt32),
               cname: String) -> SessionDescription {
        var description = AudioSessionDescription.offer(transport: transport, ssrc: audioSSRC, cname: cname)
        let sender = VideoSessionDescription.Sender(ssrc: videoSSRCs.media, rtxSSRC: videoSSRCs.rtx,
                                                    streamId: "carillon-video", trackId: "camera", cname: cname)
        description.media.append(VideoSessionDescription.offerMedia(
            mid: Self.cameraMid, direction: sendsVideo ? .sendonly : .inactive, transport: transport,
            sender: sendsVideo ? sender : nil))
        for (index, streamId) in receiveSlots.enumerated() {
            description.media.append(VideoSessionDescription.offerMedia(
                mid: Self.receiveMid(index), direction: streamId == 0 ? .inactive : .recvonly, transport: transport,
                sender: nil))
        }
        description.bundleGroups = [description.media.compactMap(\.mid)]
        return description
    }
}
