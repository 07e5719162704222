/// Roster, mute, volume and signal callbacks, delivered asynchronously on the session's callback queue.
///
/// Each carries only what changed since the previous callback of its kind.
public protocol RealtimeObserver: AnyObject {
    /// Volumes changed (needs media; not called yet).
    func volumeDidChange(volumeUpdates: [VolumeUpdate])
    /// Signal strengths changed (needs media; not called yet).
    func signalStrengthDidChange(signalUpdates: [SignalUpdate])
    /// Attendees joined; each is reported once however often the server repeats it.
    func attendeesDidJoin(attendeeInfo: [AttendeeInfo])
    /// Attendees left cleanly.
    func attendeesDidLeave(attendeeInfo: [AttendeeInfo])
    /// Attendees lost their connection.
    func attendeesDidDrop(attendeeInfo: [AttendeeInfo])
    /// Attendees muted.
    func attendeesDidMute(attendeeInfo: [AttendeeInfo])
    /// Attendees unmuted.
    func attendeesDidUnmute(attendeeInfo: [AttendeeInfo])
}
