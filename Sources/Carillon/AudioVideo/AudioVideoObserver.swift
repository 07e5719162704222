/// Session lifecycle callbacks, delivered asynchronously on the session's callback queue.
///
/// "Started" means the meeting accepted the JOIN and audio flows (ICE and DTLS completed on the server's media port);
/// "dropped" means the signaling or media connection was lost, or no audio arrived for 25 s, and a reconnect
/// follows. Poor and recovered follow the received audio (under half of the expected packets over 15 s is poor;
/// `policies.md` §5.5). The video callbacks are not called yet.
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
    /// The video session is connecting (not called yet).
    func videoSessionDidStartConnecting()
    /// The video session started (not called yet).
    func videoSessionDidStartWithStatus(sessionStatus: MeetingSessionStatus)
    /// The video session stopped (not called yet).
    func videoSessionDidStopWithStatus(sessionStatus: MeetingSessionStatus)
    /// Remote video sources appeared (not called yet).
    func remoteVideoSourcesDidBecomeAvailable(sources: [RemoteVideoSource])
    /// Remote video sources went away (not called yet).
    func remoteVideoSourcesDidBecomeUnavailable(sources: [RemoteVideoSource])
    /// Whether this attendee may send video changed (not called yet).
    func cameraSendAvailabilityDidChange(available: Bool)
}
