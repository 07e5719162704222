import Foundation

/// One node of a cluster as the shared database knows it: what it reported in its last heartbeat, and whether that
/// heartbeat is recent enough for it to count as alive (judged on the database's clock, so the nodes' clocks never
/// have to agree).
public struct ClusterNode: Sendable, Equatable {
    /// A node heartbeats about this often.
    public static let heartbeatInterval = Duration.seconds(1)
    /// A node without a heartbeat for this long is dead.
    public static let deadAfter = Duration.seconds(5)
    /// A heartbeat not written within this long is given up (the next one is due anyway).
    public static let heartbeatTimeout = Duration.seconds(2)

    /// The node's name (`--node-id`).
    public var nodeId: String
    /// How other nodes reach its HTTP port.
    public var url: String
    /// Its media address, `host:port` (a meeting's `AudioHostUrl` when it hosts it).
    public var mediaAddress: String
    /// Serving, draining or dead.
    public var state: ClusterNodeState
    /// Meetings live on it, as it last reported.
    public var meetings: Int
    /// Attendees connected to it, as it last reported.
    public var attendees: Int
    /// Its load as it last reported (the fraction of its cores busy).
    public var load: Double
    /// Its last heartbeat, on the database's clock.
    public var heartbeatAt: Date

    /// Creates a value.
    public init(nodeId: String, url: String, mediaAddress: String, state: ClusterNodeState, meetings: Int,
                attendees: Int, load: Double, heartbeatAt: Date) {
        self.nodeId = nodeId
        self.url = url
        self.mediaAddress = mediaAddress
        self.state = state
        self.meetings = meetings
        self.attendees = attendees
        self.load = load
        self.heartbeatAt = heartbeatAt
    }
}
