/// Where an authenticated signaling socket goes (``SignalingRouter``).
public enum SignalingRoute: Sendable, Equatable {
    /// The meeting is hosted here: serve it in this node's room, opened at placement `epoch` (nil on a single node).
    case local(epoch: Int64?)
    /// The meeting is hosted by node `nodeId`, whose HTTP port is at `url`: bridge the socket there.
    case bridge(nodeId: String, url: String)
    /// Nowhere now (the database cannot be reached, no node serves, the placement moved under a bridged socket): the
    /// socket is refused with a code Chime clients answer by trying again.
    case unavailable(reason: String)
}
