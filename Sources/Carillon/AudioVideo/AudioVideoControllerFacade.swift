/// Starting and stopping the session and its video, and observing it.
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

    /// Sends the SDK's own camera (a ``DefaultCameraCaptureSource`` on the default camera, see
    /// ``DeviceController/switchCamera()``) with a default ``LocalVideoConfiguration``.
    /// See ``startLocalVideo(config:)``.
    func startLocalVideo() throws(PermissionError)

    /// Sends the SDK's own camera with `config`: starts the camera and sends its frames, which also show as the
    /// local tile (``VideoTileState/isLocalTile``). Called before ``start()``, the choice is kept and applies once the
    /// session connects, and so it does across reconnects.
    ///
    /// Does nothing (logged) when the meeting's features disable video (`videoMaxResolution == .videoDisabled`).
    /// Linux asks no permission: the only error is `PermissionError.videoPermissionError` when no camera exists at
    /// all (``MediaDevice/listVideoDevices()`` is empty and none was chosen), as an iOS app is told it cannot use the
    /// camera. When the meeting allows FHD video the bitrate cap is 2500 kbps whatever `config` says (as in Chime).
    func startLocalVideo(config: LocalVideoConfiguration) throws(PermissionError)

    /// Sends an app's source with a default ``LocalVideoConfiguration``. See ``startLocalVideo(source:config:)``.
    func startLocalVideo(source: any VideoSource)

    /// Sends `source` with `config`: stops the SDK's camera if it was in use, adds the session's sink to `source`
    /// (leaving the previous source) and reads its ``VideoSource/videoContentHint`` once (``VideoContentHint/text``
    /// and ``VideoContentHint/detail`` are encoded as screen content). Starting the source is the app's business.
    /// Only frames with a ``VideoFrameI420Buffer`` are sent; others are dropped (one log line). Does nothing (logged)
    /// when the meeting's features disable video.
    func startLocalVideo(source: any VideoSource, config: LocalVideoConfiguration)

    /// Stops sending local video and removes the local tile; stops the SDK's camera if it was in use. An app's source
    /// stays attached (as in Chime): it keeps its sink until another source replaces it.
    func stopLocalVideo()

    /// Receives remote video: tiles appear as videos arrive. Remote video is off after each ``start()``; this may be
    /// called before the session connects.
    func startRemoteVideo()

    /// Stops receiving remote video.
    func stopRemoteVideo()

    /// Chooses which remote videos to receive and how (priority, target resolution), keyed by the
    /// ``RemoteVideoSource`` objects the session handed out. Not implemented yet: it logs and does nothing, and the
    /// session receives every video.
    func updateVideoSourceSubscriptions(addedOrUpdated: [RemoteVideoSource: VideoSubscriptionConfiguration],
                                        removed: [RemoteVideoSource])
}
