/// Session lifecycle callbacks, delivered asynchronously on the session's callback queue.
///
/// "Started" means the meeting accepted the JOIN and audio flows (ICE and DTLS completed on the server's media port);
/// "dropped" means the signaling or media connection was lost, or no audio arrived for 25 s, and a reconnect
/// follows. Poor and recovered follow the received audio (under half of the expected packets over 15 s is poor;
/// `policies.md` §5.5). One media connection carries audio and video, so the video session connects, starts and stops
/// with the session.
public protocol AudioVideoObserver: AnyObject {
    /// The session is connecting; `reconnecting` is true after a drop (Carillon reports this, unlike the iOS SDK).
    func audioSessionDidStartConnecting(reconnecting: Bool)
    /// The session is in the meeting (again, when `reconnecting`).
    func audioSessionDidStart(reconnecting: Bool)
    /// The connection was lost; reconnecting follows.
    func audioSessionDidDrop()
    /// The session ended: `.ok` after `stop()`, else the cause.
    func audioSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus)
    /// Reconnecting was given up (called before the stop callback).
    func audioSessionDidCancelReconnect()
    /// The connection recovered from being poor (not sooner than 60 s after it became poor).
    func connectionDidRecover()
    /// The connection became poor: under half of the expected audio arrived over the last 15 s (at most twice per
    /// session).
    func connectionDidBecomePoor()
    /// The video session is connecting (with the session's first connection attempt).
    func videoSessionDidStartConnecting()
    /// The video side started with the session (`.ok`), or the server refused this attendee's video because the
    /// meeting has its 25 video senders (`.videoAtCapacityViewOnly`; receiving still works).
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus)
    /// The video session stopped with the session: `.ok` after `stop()`, else `.videoServiceUnavailable`.
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus)
    /// Attendees' video appeared in the meeting (one object per attendee, the same while it stays available).
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource])
    /// Attendees' video went away (the objects handed out when it appeared).
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource])
    /// Whether this attendee may start sending video changed (the meeting reached or left its sender limit).
    func cameraSendAvailabilityDidChange(available: Bool)
}
