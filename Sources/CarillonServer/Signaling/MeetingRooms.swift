import CarillonProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The live meetings of this server, each pinned to one event loop of the group when its first socket arrives.
///
/// A meeting that ends (DeleteMeeting, or expiry) leaves this directory at once, so everything its room held is
/// released once its last socket has closed; its id is remembered for a while (the last ``endedMemory`` ids) so a
/// socket whose token was checked just before the end is turned away instead of opening a new room.
///
/// Threading: safe from any thread; the lock is taken only when a socket is set up or a meeting ends, never per frame.
public final class MeetingRooms: LiveAttendeeSource {
    /// How many ended meeting ids are remembered.
    public static let endedMemory = 4096

    private let group: any EventLoopGroup
    private let configuration: MeetingSignalingCore.Configuration
    private let media: MediaContext?
    private let logger: Logger
    private let state = NIOLockedValueBox(Directory())
    /// Where meeting lifecycle events go, when the operator configured a webhook.
    let events: MeetingEventRouter?

    private struct Directory {
        var rooms: [String: MeetingRoom] = [:]
        /// In a cluster, the placement epoch each room was opened at (the fence ``release(_:epoch:code:)`` acts on).
        var epochs: [String: Int64] = [:]
        var ended: Set<String> = []
        var endedOrder: [String] = []

        mutating func markEnded(_ meetingId: String) {
            guard ended.insert(meetingId).inserted else { return }
            endedOrder.append(meetingId)
            if endedOrder.count > MeetingRooms.endedMemory {
                ended.remove(endedOrder.removeFirst())
            }
        }
    }

    /// Creates an empty directory whose meetings run on `group`; with a media context they answer SUBSCRIBE.
    public init(group: any EventLoopGroup, configuration: MeetingSignalingCore.Configuration, media: MediaContext? = nil,
                logger: Logger, events: MeetingEventRouter? = nil) {
        self.events = events
        self.group = group
        self.configuration = configuration
        self.media = media
        self.logger = logger
    }

    /// The room of `meetingId`, created on the next event loop if the meeting has none yet; nil when the meeting has
    /// ended. In a cluster, `epoch` is the placement this node serves the meeting at (a newer one replaces it).
    public func room(for meetingId: String, epoch: Int64? = nil) -> MeetingRoom? {
        state.withLockedValue { state in
            guard !state.ended.contains(meetingId) else { return nil }
            if let epoch { state.epochs[meetingId] = max(epoch, state.epochs[meetingId] ?? epoch) }
            if let room = state.rooms[meetingId] { return room }
            let room = MeetingRoom(
                meetingId: meetingId,
                eventLoop: group.next(),
                configuration: configuration,
                media: media,
                logger: logger,
                events: events
            )
            state.rooms[meetingId] = room
            return room
        }
    }

    /// The room of `meetingId` if it has one; never creates one.
    public func existingRoom(for meetingId: String) -> MeetingRoom? {
        state.withLockedValue { $0.rooms[meetingId] }
    }

    /// Ends a meeting's live sessions (it was deleted or expired) and forgets its room; `announce` publishes its end
    /// as an event (false when another node of the cluster ended it and announced it there).
    public func endMeeting(_ meetingId: String, announce: Bool = true) {
        let (room, first) = state.withLockedValue { state in
            let first = !state.ended.contains(meetingId)
            state.markEnded(meetingId)
            state.epochs.removeValue(forKey: meetingId)
            return (state.rooms.removeValue(forKey: meetingId), first)
        }
        if first, announce { events?.meetingEnded(meetingId) }
        room?.endMeeting()
    }

    /// Ends a deleted attendee's live sessions; `announce` as for ``endMeeting(_:announce:)``.
    public func removeAttendee(meetingId: String, attendeeId: String, announce: Bool = true) {
        if announce { events?.attendeeDeleted(meetingId: meetingId, attendeeId: attendeeId) }
        existingRoom(for: meetingId)?.removeAttendee(attendeeId)
    }

    /// In a cluster, the placement epoch of every meeting this node has a room for.
    public func placedEpochs() -> [String: Int64] {
        state.withLockedValue { $0.epochs }
    }

    /// Lets go of a meeting this node no longer hosts (it moved to another node, or this node stops serving it):
    /// every socket is closed with `code`, which Chime clients answer by reconnecting (to wherever the meeting is
    /// now), and the room is forgotten without ending the meeting. Only the room opened at `epoch` or before is let
    /// go, so a room opened again at a newer placement meanwhile stays.
    public func release(_ meetingId: String, epoch: Int64, code: UInt16) {
        let room = state.withLockedValue { state -> MeetingRoom? in
            guard let current = state.epochs[meetingId], current <= epoch else { return nil }
            state.epochs.removeValue(forKey: meetingId)
            return state.rooms.removeValue(forKey: meetingId)
        }
        room?.closeAll(code: code)
    }

    /// Applies new capabilities to the live sessions of `attendeeIds` (UpdateAttendeeCapabilities and its batch form).
    public func updateCapabilities(meetingId: String, attendeeIds: [String], capabilities: ControlAPI.AttendeeCapabilities) {
        guard let room = existingRoom(for: meetingId) else { return }
        for attendeeId in attendeeIds { room.updatePermissions(attendeeId, capabilities: capabilities) }
    }

    /// See ``LiveAttendeeSource``: the room's attendees, none for a meeting without a room on this server.
    public func liveAttendees(meetingId: String) async throws -> [LiveAttendeeState] {
        guard let room = existingRoom(for: meetingId) else { return [] }
        return try await room.liveAttendees().get()
    }

    /// Closes every socket of every meeting, for a server shutdown.
    public func closeAll(code: UInt16) {
        for room in state.withLockedValue({ Array($0.rooms.values) }) { room.closeAll(code: code) }
    }

    /// Number of meetings with a live room.
    public var count: Int { state.withLockedValue { $0.rooms.count } }
}
