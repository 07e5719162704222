/// Where a meeting is hosted: the node serving it and the placement's epoch, a fencing number that grows each time
/// the meeting moves. A node serves a meeting only while the database still names it with that epoch.
public struct MeetingHost: Sendable, Equatable {
    /// The hosting node.
    public var nodeId: String
    /// The placement's number: 1 when placed, one more at each move.
    public var epoch: Int64
    /// Whether the hosting node is alive (heartbeating) as of the read.
    public var alive: Bool

    /// Creates a value.
    public init(nodeId: String, epoch: Int64, alive: Bool) {
        self.nodeId = nodeId
        self.epoch = epoch
        self.alive = alive
    }
}
