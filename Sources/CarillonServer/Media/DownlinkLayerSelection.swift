/// Which layer of its source a receive m-line carries and which it should carry (`video.md` §2): the target is an
/// input (REMOTE_VIDEO_UPDATE, the receiver's subscription, or the layer rule); the current layer changes to the target
/// only at a key frame of the target, so until then the old layer keeps flowing.
///
/// Both are stream ids (SUBSCRIBE_ACK allocations, INDEX). A value type; no threading concerns.
struct DownlinkLayerSelection: Equatable {
    /// The stream forwarded now; nil before the first key frame.
    var current: UInt32?
    /// The stream wanted.
    var target: UInt32

    /// Whether the downlink waits for a key frame of the target to switch to it.
    var isSwitching: Bool { current != target }
}
