extension ControlAPI {
    /// Carillon's `GET /carillon/nodes` (`carillon nodes`): the cluster's nodes, `{"Nodes": [...]}`.
    public struct NodesResponse: Codable, Sendable, Equatable {
        /// Every node the cluster knows, by id.
        public var nodes: [Node]

        enum CodingKeys: String, CodingKey {
            case nodes = "Nodes"
        }

        /// Creates a value.
        public init(nodes: [Node]) {
            self.nodes = nodes
        }

        /// One node.
        public struct Node: Codable, Sendable, Equatable {
            /// Its name (`--node-id`).
            public var nodeId: String
            /// How other nodes reach its HTTP port.
            public var url: String
            /// Its media address, `host:port`.
            public var mediaAddress: String
            /// `serving`, `draining` or `dead`.
            public var state: String
            /// Meetings hosted.
            public var meetings: Int
            /// Attendees connected.
            public var attendees: Int
            /// Fraction of its cores busy.
            public var load: Double
            /// Its last heartbeat, ISO 8601.
            public var lastHeartbeat: String

            enum CodingKeys: String, CodingKey {
                case nodeId = "NodeId"
                case url = "Url"
                case mediaAddress = "MediaAddress"
                case state = "State"
                case meetings = "Meetings"
                case attendees = "Attendees"
                case load = "Load"
                case lastHeartbeat = "LastHeartbeat"
            }

            /// Creates a value.
            public init(nodeId: String, url: String, mediaAddress: String, state: String, meetings: Int, attendees: Int,
                        load: Double, lastHeartbeat: String) {
                self.nodeId = nodeId
                self.url = url
                self.mediaAddress = mediaAddress
                self.state = state
                self.meetings = meetings
                self.attendees = attendees
                self.load = load
                self.lastHeartbeat = lastHeartbeat
            }
        }
    }
}
