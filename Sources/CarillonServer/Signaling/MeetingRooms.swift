import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The live meetings of this server, each pinned to one event loop of the group when its first socket arrives.
///
/// Threading: safe from any thread; the lock is taken only when a socket is set up or a meeting ends, never per frame.
public final class MeetingRooms: Sendable {
    private let group: any EventLoopGroup
    private let configuration: MeetingSignalingCore.Configuration
    private let media: MediaContext?
    private let logger: Logger
    private let rooms = NIOLockedValueBox<[String: MeetingRoom]>([:])

    /// Creates an empty directory whose meetings run on `group`; with a media context they answer SUBSCRIBE.
    public init(group: any EventLoopGroup, configuration: MeetingSignalingCore.Configuration, media: MediaContext? = nil,
                logger: Logger) {
        self.group = group
        self.configuration = configuration
        self.media = media
        self.logger = logger
    }

    /// The room of `meetingId`, created on the next event loop if the meeting has none yet.
    public func room(for meetingId: String) -> MeetingRoom {
        rooms.withLockedValue { rooms in
            if let room = rooms[meetingId] { return room }
            let room = MeetingRoom(
                meetingId: meetingId,
                eventLoop: group.next(),
                configuration: configuration,
                media: media,
                logger: logger
            )
            rooms[meetingId] = room
            return room
        }
    }

    /// Ends a deleted meeting's live sessions; its room stays as a marker so late sockets are turned away.
    public func endMeeting(_ meetingId: String) {
        room(for: meetingId).endMeeting()
    }

    /// Ends a deleted attendee's live sessions.
    public func removeAttendee(meetingId: String, attendeeId: String) {
        rooms.withLockedValue { $0[meetingId] }?.removeAttendee(attendeeId)
    }

    /// Closes every socket of every meeting, for a server shutdown.
    public func closeAll(code: UInt16) {
        for room in rooms.withLockedValue({ Array($0.values) }) { room.closeAll(code: code) }
    }

    /// Number of meetings with a live room.
    public var count: Int { rooms.withLockedValue { $0.count } }
}
