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
