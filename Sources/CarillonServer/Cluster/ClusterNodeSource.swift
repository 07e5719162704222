/// Where Carillon's `GET /carillon/nodes` reads the cluster's nodes: the shared database for a cluster's node, the
/// server itself for a single node.
public protocol ClusterNodeSource: Sendable {
    /// Every node, by id.
    func nodes() async throws -> [ClusterNode]
}

extension PostgresMeetingStore: ClusterNodeSource {}
