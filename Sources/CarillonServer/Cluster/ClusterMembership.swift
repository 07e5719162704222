import CarillonProtocol
import Foundation
import Logging

/// This node as a member of a cluster on PostgreSQL: which node serves a meeting's signaling (``SignalingRouter``:
/// here at its placement's epoch, or bridged to the hosting node), the fence on the meetings it serves, the
/// control-API changes the other nodes send it, and which meetings are another node's to expire.
///
/// The fence: every meeting served here is served at the placement epoch it was opened at
/// (``MeetingRooms/placedEpochs()``). After each heartbeat the node reads those placements back; a meeting that has
/// moved (this node was declared dead and came back, or it drains) is let go: its sockets are closed with a code that
/// makes Chime clients reconnect, and their reconnect lands on the node that hosts it now. A node therefore serves a
/// moved meeting for at most one heartbeat interval after it can read the database again.
///
/// Threading: safe from any task; the state it decides on lives in the database and in ``MeetingRooms``.
final class ClusterMembership: SignalingRouter, MeetingLifecycleObserver {
    /// The `LISTEN`/`NOTIFY` channel of ``LiveMeetingChange``s.
    static let channel = "carillon_live"
    /// How long a socket's routing waits for the database before the socket is refused (and its client retries).
    static let routeTimeout = Duration.seconds(5)

    private let store: PostgresMeetingStore
    private let node: NodeHeartbeat
    private let rooms: MeetingRooms
    /// What this node does with a change it took itself (logs, events, its own rooms).
    private let local: LiveMeetingTerminator
    /// The recordings, which run where their meeting is hosted.
    private let capture: MediaCapturePipelines?
    private let logger: Logger

    init(store: PostgresMeetingStore, node: NodeHeartbeat, rooms: MeetingRooms, local: LiveMeetingTerminator,
         capture: MediaCapturePipelines? = nil, logger: Logger) {
        self.store = store
        self.node = node
        self.rooms = rooms
        self.local = local
        self.capture = capture
        self.logger = logger
    }

    // MARK: Routing signaling

    /// See ``SignalingRouter``: the meeting's host now, placing it (or moving it off a dead or draining node) when
    /// needed; a socket that was bridged here is never bridged on.
    func route(meetingId: String, bridgedBy: String?) async -> SignalingRoute {
        guard let nodeId = node.nodeId else { return .unavailable(reason: "this node is starting") }
        do {
            // A join waits for the database no longer than a client waits for its JOIN_ACK.
            let store = store
            let found = try await store.within(Self.routeTimeout) { () async throws -> (MeetingHost, String?)? in
                guard let host = try await store.host(meetingId: meetingId) else { return nil }
                return (host, host.nodeId == nodeId ? nil : try await store.nodeURL(host.nodeId))
            }
            guard let (host, url) = found else {
                return .unavailable(reason: "no node of the cluster takes meetings now")
            }
            if host.nodeId == nodeId {
                // The meeting's first socket here: its recordings (which ran on the node it left) go on here.
                if rooms.existingRoom(for: meetingId) == nil, let capture {
                    Task { await capture.resume(meetingId: meetingId, epoch: host.epoch) }
                }
                return .local(epoch: host.epoch)
            }
            if let bridgedBy {
                return .unavailable(reason: "bridged here by \(bridgedBy), but the meeting is hosted by \(host.nodeId)")
            }
            guard let url else { return .unavailable(reason: "node \(host.nodeId) has no URL") }
            return .bridge(nodeId: host.nodeId, url: url)
        } catch {
            return .unavailable(reason: "the database cannot be reached: \(error)")
        }
    }

    // MARK: The fence

    /// Lets go of every meeting served here whose placement has moved on (or whose meeting is gone from the database).
    func fence() async {
        guard let nodeId = node.nodeId else { return }
        let served = rooms.placedEpochs()
        guard !served.isEmpty else { return }
        let hosts: [String: MeetingHost]
        do {
            let store = store
            hosts = try await store.within(ClusterNode.heartbeatTimeout) {
                try await store.currentHosts(meetingIds: Array(served.keys))
            }
        } catch {
            return
        }
        for (meetingId, epoch) in served {
            let host = hosts[meetingId]
            guard host?.nodeId != nodeId || host?.epoch != epoch else { continue }
            if let host {
                logger.warning("meeting moved to node \(host.nodeId) (placement \(host.epoch)); its sessions here are closed",
                               metadata: ["meeting": "\(meetingId)"])
            }
            await capture?.suspend(meetingId: meetingId)
            rooms.release(meetingId, epoch: epoch, code: SignalingCloseCode.shuttingDown)
        }
    }

    /// The meetings another live node hosts: theirs to expire.
    func meetingsHostedElsewhere() async throws -> Set<String> {
        let nodeId = node.nodeId, store = store
        let hosts = try await store.within(.seconds(10)) { try await store.currentHosts() }
        return Set(hosts.filter { $0.value.alive && $0.value.nodeId != nodeId }.keys)
    }

    // MARK: Changes from the control API

    func meetingDeleted(meetingId: String) {
        local.meetingDeleted(meetingId: meetingId)
        publish(.meetingDeleted, meetingId: meetingId)
    }

    func attendeeDeleted(meetingId: String, attendeeId: String) {
        local.attendeeDeleted(meetingId: meetingId, attendeeId: attendeeId)
        publish(.attendeeDeleted, meetingId: meetingId, attendeeIds: [attendeeId])
    }

    func attendeeCapabilitiesChanged(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities) {
        local.attendeeCapabilitiesChanged(meetingId: meetingId, attendeeIds: attendeeIds, capabilities: capabilities)
        var start = 0
        while start < attendeeIds.count {
            let end = min(start + LiveMeetingChange.attendeesPerNotification, attendeeIds.count)
            publish(.capabilitiesChanged, meetingId: meetingId, attendeeIds: Array(attendeeIds[start..<end]),
                    capabilities: capabilities)
            start = end
        }
    }

    func meetingCreated(_ meeting: MeetingRecord) { local.meetingCreated(meeting) }

    /// The placement epoch of the meeting when this node hosts it (placing it, or moving it off a dead or draining
    /// node, when needed); nil when another node does, or the database cannot say.
    func hostsHere(meetingId: String) async -> Int64? {
        guard let nodeId = node.nodeId, let host = try? await store.host(meetingId: meetingId),
              host.nodeId == nodeId else { return nil }
        return host.epoch
    }

    /// Tells the node that hosts the meeting that its pipelines changed in the store.
    func pipelinesChanged(meetingId: String) {
        publish(.pipelinesChanged, meetingId: meetingId)
    }

    func attendeeCreated(_ attendee: AttendeeRecord) { local.attendeeCreated(attendee) }

    private func publish(_ kind: LiveMeetingChange.Kind, meetingId: String, attendeeIds: [String]? = nil,
                         capabilities: ControlAPI.AttendeeCapabilities? = nil) {
        guard let nodeId = node.nodeId else { return }
        let change = LiveMeetingChange(from: nodeId, kind: kind, meetingId: meetingId, attendeeIds: attendeeIds,
                                       capabilities: capabilities)
        guard let payload = try? String(decoding: JSONEncoder().encode(change), as: UTF8.self) else { return }
        let store = store, logger = logger
        Task {
            do { try await store.notify(Self.channel, payload: payload) } catch {
                logger.warning("could not tell the cluster about \(kind.rawValue) of meeting \(meetingId): \(error)")
            }
        }
    }

    /// Applies the changes other nodes took until cancelled, listening again (after a second) when the database
    /// connection is lost.
    func listen() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await store.listen(Self.channel) { [self] payload in apply(payload) }
            } catch {
                if Task.isCancelled { return }
                if !failing { logger.warning("listening for the cluster's changes failed: \(error)") }
                failing = true
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Applies one notification from another node to the sessions hosted here (its events were announced there).
    func apply(_ payload: String) {
        guard let change = try? JSONDecoder().decode(LiveMeetingChange.self, from: Data(payload.utf8)) else {
            logger.warning("ignored a malformed cluster notification")
            return
        }
        guard change.from != node.nodeId else { return }
        switch change.kind {
        case .meetingDeleted:
            rooms.endMeeting(change.meetingId, announce: false)
        case .attendeeDeleted:
            for attendeeId in change.attendeeIds ?? [] {
                rooms.removeAttendee(meetingId: change.meetingId, attendeeId: attendeeId, announce: false)
            }
        case .capabilitiesChanged:
            guard let capabilities = change.capabilities else { return }
            rooms.updateCapabilities(meetingId: change.meetingId, attendeeIds: change.attendeeIds ?? [],
                                     capabilities: capabilities)
        case .pipelinesChanged:
            guard let capture else { return }
            Task {
                guard let epoch = await hostsHere(meetingId: change.meetingId) else { return }
                await capture.resume(meetingId: change.meetingId, epoch: epoch)
            }
        }
    }
}
