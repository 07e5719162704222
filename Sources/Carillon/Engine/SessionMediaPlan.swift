import CarillonMedia
import CarillonRTC

/// What a session's offer contains, as the signaling core decides it: whether the camera m-line sends, and which
/// remote stream each receive m-line asks for.
///
/// The m-lines are fixed by position so renegotiations keep every mid: audio `0`, the camera `1`, then receive slot
/// *i* as mid `2 + i` (recvonly when it has a stream, inactive when its stream went away; slots are reused).
struct SessionMediaPlan: Sendable, Equatable {
    /// How much one received source matters and the bitrate to aim for: SUBSCRIBE `video_subscription_configuration`
    /// in server-side adaptation (`signaling.md` §3.10).
    struct ReceivePreference: Sendable, Equatable {
        /// Wire priority, `4294967295 − p` for the priority `p` (1 is the most important): larger is more important.
        var priority: UInt32
        /// 300, 600, 1500 or 10000 kbps, from the target resolution.
        var targetBitrateKbps: UInt32

        /// The wire priority of Chime's priority `p` (1 first).
        static func wirePriority(_ p: UInt32) -> UInt32 { UInt32.max - p }
        /// Every source when the app configured none (`policies.md` §2.2): priority 1, the target from how many
        /// attendees send video (Maximum up to 4, Medium up to 8, Low beyond).
        static func automatic(sources: Int) -> ReceivePreference {
            ReceivePreference(priority: wirePriority(1), targetBitrateKbps: sources <= 4 ? 10_000 : sources <= 8 ? 600 : 300)
        }
    }

    /// Whether the camera m-line sends video.
    var sendsVideo = false
    /// The camera's simulcast layers (low, mid, hi; ``SimulcastUplinkPolicy``) while sending with simulcast, empty
    /// for one stream. A change of the table (or of the source's size) is a new SUBSCRIBE.
    var sendLayers: [SimulcastLayerSetting] = []
    /// The stream id wanted on each receive m-line; 0 leaves the m-line inactive.
    var receiveSlots: [UInt32] = []
    /// The preference of each received stream, by stream id, in server-side adaptation (empty otherwise); a change
    /// is sent to the server in a new SUBSCRIBE.
    var receivePreferences: [UInt32: ReceivePreference] = [:]

    /// The mid of receive slot `index`.
    static func receiveMid(_ index: Int) -> String { "\(index + 2)" }
    /// The mid of the camera m-line.
    static let cameraMid = "1"

    /// SUBSCRIBE `receive_stream_ids`: one per video m-line in SDP order (the camera's is 0).
    var receiveStreamIds: [UInt32] { [0] + receiveSlots }

    /// The ids this side offers for the `rtp-stream-id` and `repaired-rtp-stream-id` extensions on a simulcast
    /// camera m-line.
    static let ridExtensionIds = (rid: UInt8(10), repairedRid: UInt8(11))

    /// The SSRCs of each simulcast layer (low, mid, hi) of a camera whose single stream sends on `videoSSRCs`: the
    /// lowest layer keeps them, the others are derived, so one pair of random SSRCs per connection names all.
    static func layerSSRCs(_ videoSSRCs: (media: UInt32, rtx: UInt32)) -> [(media: UInt32, rtx: UInt32)] {
        (0..<SimulcastUplinkPolicy.rids.count).map { index in
            let step = UInt32(index) &* 0x0100_0193
            return (videoSSRCs.media &+ step, videoSSRCs.rtx &+ step)
        }
    }

    /// The offer for this plan over `transport`: audio sending `audioSSRC`, the camera sending `videoSSRCs` when
    /// ``sendsVideo`` (with ``sendLayers``: rid simulcast, `a=rid` low/mid/hi and `a=simulcast`, no SSRCs declared:
    /// the server learns them from the `rtp-stream-id` extension), and the receive m-lines.
    func offer(transport: TransportDescription, audioSSRC: UInt32, videoSSRCs: (media: UInt32, rtx: UInt32),
               cname: String) -> SessionDescription {
        var description = AudioSessionDescription.offer(transport: transport, ssrc: audioSSRC, cname: cname)
        let sender = VideoSessionDescription.Sender(ssrc: videoSSRCs.media, rtxSSRC: videoSSRCs.rtx,
                                                    streamId: "carillon-video", trackId: "camera", cname: cname)
        var camera = VideoSessionDescription.offerMedia(
            mid: Self.cameraMid, direction: sendsVideo ? .sendonly : .inactive, transport: transport,
            sender: sendsVideo && sendLayers.isEmpty ? sender : nil)
        if sendsVideo, !sendLayers.isEmpty {
            camera.msid = [SDPMediaStreamID(streamId: sender.streamId, trackId: sender.trackId)]
            camera.rids = sendLayers.map { SDPRid(id: $0.rid, direction: .send) }
            camera.simulcast = SDPSimulcast(sendRids: sendLayers.map(\.rid))
            camera.extensions += [SDPExtension(id: Self.ridExtensionIds.rid, uri: SDPExtension.ridURI),
                                  SDPExtension(id: Self.ridExtensionIds.repairedRid, uri: SDPExtension.repairedRidURI)]
        }
        description.media.append(camera)
        for (index, streamId) in receiveSlots.enumerated() {
            description.media.append(VideoSessionDescription.offerMedia(
                mid: Self.receiveMid(index), direction: streamId == 0 ? .inactive : .recvonly, transport: transport,
                sender: nil))
        }
        description.bundleGroups = [description.media.compactMap(\.mid)]
        return description
    }
}
