import Foundation
import NIOConcurrencyHelpers

/// Turns what the control API and the meetings report into ``MeetingEvent``s for the meetings whose CreateMeeting
/// asked for notifications (any target in `NotificationsConfiguration`), and hands them to the dispatcher.
///
/// Threading: safe from any thread; one lock guards the set of meetings that want events (taken per event, never on
/// a media path).
public final class MeetingEventRouter: Sendable {
    private let sink: any MeetingEventSink
    /// Whether this router knows which meetings want events (one server) or leaves that to its sink (a cluster,
    /// whose meetings are created on one node and live on another: ``ClusterWebhookQueue``).
    private let filters: Bool
    private let subscribed = NIOLockedValueBox<Set<String>>([])

    /// Creates a router delivering through `dispatcher`.
    public convenience init(dispatcher: WebhookDispatcher) {
        self.init(sink: dispatcher, filters: true)
    }

    init(sink: any MeetingEventSink, filters: Bool) {
        self.sink = sink
        self.filters = filters
    }

    /// Meetings already stored that asked for notifications (at start-up).
    func subscribe(_ meetings: [MeetingRecord]) {
        let ids = meetings.filter { $0.notifications != nil }.map(\.meetingId)
        subscribed.withLockedValue { $0.formUnion(ids) }
    }

    func meetingCreated(_ meeting: MeetingRecord) {
        guard meeting.notifications != nil else { return }
        subscribed.withLockedValue { _ = $0.insert(meeting.meetingId) }
        publish(.meetingStarted, meetingId: meeting.meetingId)
    }

    func attendeeCreated(_ attendee: AttendeeRecord) {
        publish(.attendeeAdded, meetingId: attendee.meetingId, attendeeId: attendee.attendeeId,
                externalUserId: attendee.externalUserId)
    }

    func attendeeDeleted(meetingId: String, attendeeId: String) {
        publish(.attendeeDeleted, meetingId: meetingId, attendeeId: attendeeId)
    }

    func meetingEnded(_ meetingId: String) {
        publish(.meetingEnded, meetingId: meetingId)
        subscribed.withLockedValue { _ = $0.remove(meetingId) }
    }

    func activity(meetingId: String, identity: AttendeeIdentity, change: AttendeeActivity) {
        // A content share is the `<attendeeId>#content` attendee: Chime names its events apart.
        let content = identity.attendeeId.hasSuffix("#content")
        let type: MeetingEvent.EventType = switch change {
        case .joined: content ? .attendeeContentJoined : .attendeeJoined
        case .left: content ? .attendeeContentLeft : .attendeeLeft
        case .dropped: content ? .attendeeContentDropped : .attendeeDropped
        case .videoStarted: content ? .attendeeContentVideoStarted : .attendeeVideoStarted
        case .videoStopped: content ? .attendeeContentVideoStopped : .attendeeVideoStopped
        }
        publish(type, meetingId: meetingId, attendeeId: identity.attendeeId, externalUserId: identity.externalUserId)
    }

    private func publish(_ type: MeetingEvent.EventType, meetingId: String, attendeeId: String? = nil,
                         externalUserId: String? = nil) {
        guard !filters || subscribed.withLockedValue({ $0.contains(meetingId) }) else { return }
        sink.publish(MeetingEvent(eventType: type, meetingId: meetingId, attendeeId: attendeeId,
                                        externalUserId: externalUserId,
                                        timestamp: Int64((Date().timeIntervalSince1970 * 1000).rounded())))
    }
}
