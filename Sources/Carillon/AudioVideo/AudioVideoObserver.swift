/// Session lifecycle callbacks, delivered asynchronously on the session's callback queue.
///
/// Until Carillon's media lands, the audio-session callbacks follow the signaling connection: "started" means the
/// server accepted the JOIN (JOIN_ACK and the first INDEX arrived); "dropped" means the signaling connection was lost.
/// The video callbacks are not called yet.
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
    /// The connection recovered from being poor.
    func connectionDidRecover()
    /// The connection became poor.
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
