/// Starting and stopping the session and observing it.
public protocol AudioVideoControllerFacade: AnyObject {
    /// The session's configuration.
    var configuration: MeetingSessionConfiguration { get }
    /// The session's logger.
    var logger: any Logger { get }
    /// Starts the session: connects, joins, and keeps reconnecting within `reconnectTimeoutMs` when the link drops.
    ///
    /// Throws `MediaError.illegalState` when this session is already started and `MediaError.audioFailedToStart` when
    /// a service URL is blank or not a `ws://`/`http://` URL.
    func start(audioVideoConfiguration: AudioVideoConfiguration) throws
    /// Starts with `AudioVideoConfiguration(callKitEnabled:)`.
    func start(callKitEnabled: Bool) throws
    /// Starts with the default configuration.
    func start() throws
    /// Leaves the meeting (LEAVE, then close); observers get `audioSessionDidStopWithStatus(.ok)`.
    func stop()
    /// Adds a lifecycle observer (kept strongly until removed, as in the Chime SDK).
    func addAudioVideoObserver(observer: any AudioVideoObserver)
    /// Removes a lifecycle observer.
    func removeAudioVideoObserver(observer: any AudioVideoObserver)
    /// Adds a metrics observer (kept strongly until removed): about once a second while media is connected.
    func addMetricsObserver(observer: any MetricsObserver)
    /// Removes a metrics observer.
    func removeMetricsObserver(observer: any MetricsObserver)
}
