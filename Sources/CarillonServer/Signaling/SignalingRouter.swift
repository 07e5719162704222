/// Decides where a signaling socket for a meeting is served: on a single node always here; in a cluster, on the
/// meeting's hosting node (``ClusterMembership``).
public protocol SignalingRouter: Sendable {
    /// The route of a socket for `meetingId` whose join token was accepted; `bridgedBy` names the node that bridged it
    /// here (the `X-Carillon-Bridged-By` header), so a bridged socket is never bridged again.
    func route(meetingId: String, bridgedBy: String?) async -> SignalingRoute
}
