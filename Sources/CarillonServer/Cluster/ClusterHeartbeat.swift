/// What a node reports about itself once a second.
public struct ClusterHeartbeat: Sendable, Equatable {
    /// The node's name.
    public var nodeId: String
    /// How other nodes reach its HTTP port.
    public var url: String
    /// Its media address, `host:port`.
    public var mediaAddress: String
    /// False once it drains (it was asked to stop): it takes no new meetings.
    public var serving: Bool
    /// Meetings live on it.
    public var meetings: Int
    /// Attendees connected to it.
    public var attendees: Int
    /// The fraction of its cores busy.
    public var load: Double

    /// Creates a value.
    public init(nodeId: String, url: String, mediaAddress: String, serving: Bool = true, meetings: Int = 0,
                attendees: Int = 0, load: Double = 0) {
        self.meetings = meetings
        self.nodeId = nodeId
        self.url = url
        self.mediaAddress = mediaAddress
        self.serving = serving
        self.attendees = attendees
        self.load = load
    }
}
