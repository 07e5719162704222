import CarillonProtocol
import Foundation

/// Carillon's extension `GET /carillon/nodes` (`CarillonListNodes`), signed like the rest: the cluster's nodes with
/// their state, meetings, attendees, load and last heartbeat.
extension ControlAPIHandler {
    func listNodes() async throws -> (Int, [UInt8]?) {
        let nodes = try await cluster?.nodes() ?? []
        let listed = nodes.map { node in
            ControlAPI.NodesResponse.Node(
                nodeId: node.nodeId, url: node.url, mediaAddress: node.mediaAddress, state: node.state.rawValue,
                meetings: node.meetings, attendees: node.attendees, load: node.load,
                lastHeartbeat: node.heartbeatAt.formatted(Self.timestampFormat))
        }
        return (200, try encode(ControlAPI.NodesResponse(nodes: listed)))
    }
}
