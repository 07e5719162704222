/// One received video stream of ``VideoReceiveStreams`` (a receive m-line) and what it carries.
///
/// The ids (``streamId``, ``groupId``, ``attendeeId``) label the stream for the layer above, which names tiles and
/// metrics by them; this layer only passes them on. A value; no threading concerns.
public struct VideoReceiveTrack: Sendable, Equatable {
    /// The m-line's mid.
    public var mid: String
    /// The stream id it carries (SUBSCRIBE_ACK tracks in a meeting; any number elsewhere).
    public var streamId: UInt32
    /// The source (INDEX `group_id`) the stream is a layer of; 0 when unknown.
    public var groupId: UInt32
    /// Who sends it, passed on with its pictures.
    public var attendeeId: String
    /// The media SSRC.
    public var ssrc: UInt32
    /// The RTX SSRC, when RTX was negotiated and the sender announced it.
    public var rtxSSRC: UInt32?
    /// VP8's payload type.
    public var payloadType: UInt8
    /// The RTX payload type paired with VP8, when negotiated.
    public var rtxPayloadType: UInt8?
    /// The transport-wide sequence number extension's id, when negotiated (feedback is sent about it).
    public var transportCCExtensionId: UInt8?

    /// A track; see the properties.
    public init(mid: String, streamId: UInt32, groupId: UInt32 = 0, attendeeId: String, ssrc: UInt32,
                rtxSSRC: UInt32?, payloadType: UInt8, rtxPayloadType: UInt8?, transportCCExtensionId: UInt8? = nil) {
        self.mid = mid
        self.streamId = streamId
        self.groupId = groupId
        self.attendeeId = attendeeId
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.transportCCExtensionId = transportCCExtensionId
    }

    /// The tile id: the source's group id, unique in the meeting, new for each publication and the same for all its
    /// layers, so a layer switch, a change of the sender's layers or a new SSRC keeps the tile (the stream id when
    /// the group is unknown).
    public var videoId: Int { Int(groupId != 0 ? groupId : streamId) }
}
