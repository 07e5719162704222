/// Which layer of its source a receive m-line carries and which it should carry (`video.md` §2): the target is an
/// input (REMOTE_VIDEO_UPDATE, the receiver's subscription, or the allocation's choice); the current layer changes to
/// the target (or, while the target sends nothing, to the flowing layer standing in for it,
/// ``MeetingVideoRouter/layerSilenceTimeout``) only at a key frame of that layer, so until then the old layer keeps
/// flowing.
///
/// Both are stream ids (SUBSCRIBE_ACK allocations, INDEX). A value type; no threading concerns.
struct DownlinkLayerSelection: Equatable {
    /// The stream forwarded now; nil before the first key frame.
    var current: UInt32?
    /// The stream wanted.
    var target: UInt32
}
