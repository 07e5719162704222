/// Where a node of a cluster stands, as `carillon nodes` shows it.
public enum ClusterNodeState: String, Sendable, Codable, CaseIterable {
    /// Heartbeating and taking new meetings.
    case serving
    /// Heartbeating, finishing its meetings, taking no new ones (it was asked to stop).
    case draining
    /// No heartbeat for ``ClusterNode/deadAfter``: its meetings go to other nodes at their next join.
    case dead
}
