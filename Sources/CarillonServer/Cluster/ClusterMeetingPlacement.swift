import CarillonProtocol

/// Places a cluster's meetings: CreateMeeting puts a meeting on the least-loaded serving node (``PostgresMeetingStore/host(meetingId:)``)
/// and its `AudioHostUrl` names that node's media address, as Chime's names the media host; every other URL is this
/// node's or the cluster's public endpoint (``LocalMeetingPlacement``), since any node is a way in.
///
/// A meeting not placed (no node was serving when it was created) shows this node's media address until a join
/// places it. Threading: safe from any task.
struct ClusterMeetingPlacement: MeetingPlacement {
    let store: PostgresMeetingStore
    /// This node's URLs and media address.
    let urls: LocalMeetingPlacement

    func place(meetingId: String) async throws -> ControlAPI.MediaPlacement {
        var address = urls.mediaAddress
        if let host = try await store.host(meetingId: meetingId),
           let hostAddress = try await store.mediaAddresses()[host.nodeId] {
            address = hostAddress
        }
        return urls.mediaPlacement(meetingId: meetingId, mediaAddress: address)
    }

    func mediaPlacements(meetingIds: [String]) async throws -> [String: ControlAPI.MediaPlacement] {
        let hosts = try await store.currentHosts(meetingIds: meetingIds)
        let addresses = hosts.isEmpty ? [:] : try await store.mediaAddresses()
        var placements: [String: ControlAPI.MediaPlacement] = [:]
        for meetingId in meetingIds {
            let address = hosts[meetingId].flatMap { addresses[$0.nodeId] } ?? urls.mediaAddress
            placements[meetingId] = urls.mediaPlacement(meetingId: meetingId, mediaAddress: address)
        }
        return placements
    }
}
