import CarillonCodecs

/// What the SDK's public video API asks of a running session: the seam between the facade (and its video sources)
/// and the session engine, in codec types so neither side depends on the other's classes.
///
/// Threading: every method may be called from any thread; the engine hops onto its event loop (one hop per call,
/// one per frame for ``sendVideoFrame(_:timestampNanoseconds:)``).
protocol SessionVideoControl: AnyObject, Sendable {
    /// Sends local video from now on, as frames arrive through ``sendVideoFrame(_:timestampNanoseconds:)``.
    /// `maxBitRateKbps` 0 lets the engine decide; `screenContent` tunes the encoder for screen content; `simulcast`
    /// sends the camera in simulcast layers (`highResolution`: with an FHD meeting's targets).
    func startSendingVideo(maxBitRateKbps: UInt32, screenContent: Bool, simulcast: Bool, highResolution: Bool)
    /// Stops sending local video.
    func stopSendingVideo()
    /// One local frame, from any thread; the engine keeps what it needs (the image is a value).
    func sendVideoFrame(_ image: I420Image, timestampNanoseconds: Int64)
    /// Receives remote video (after `startRemoteVideo()`) or not (`stopRemoteVideo()`, the default).
    func setReceivingVideo(_ receiving: Bool)
    /// The app's remote video subscriptions by attendee id (`updateVideoSourceSubscriptions`): from the first call
    /// on, exactly the subscribed videos are received, with these preferences.
    func updateVideoSubscriptions(addedOrUpdated: [String: SessionMediaPlan.ReceivePreference], removed: [String])
    /// Pauses or resumes one remote video (its tile id is its video id).
    func setRemoteVideoPaused(_ paused: Bool, videoId: Int)
    /// Decodes one remote video (a view is bound to its tile) or stops decoding it; undecoded videos are received
    /// and counted, and their tiles still come and go.
    func setRemoteVideoDecoded(_ decoded: Bool, videoId: Int)
}

/// Where the engine delivers remote video: the tile controller implements it.
///
/// Threading: called on the session's callback queue, in order.
protocol RemoteVideoFrameSink: AnyObject, Sendable {
    /// A decoded frame of remote video `videoId` from `attendeeId`; nil when the video ended (its tile goes), or,
    /// with `pausedForPoorConnection`, when the server paused it.
    func remoteVideoFrame(_ image: I420Image?, timestampNanoseconds: Int64, videoId: Int, attendeeId: String,
                          pausedForPoorConnection: Bool)
    /// Remote video `videoId`, not decoded, delivers frames of `width`×`height`: announced on its first frame, a
    /// size change and the first frame after a pause, so its tile exists, has its size and resumes.
    func remoteVideoArrived(width: Int, height: Int, timestampNanoseconds: Int64, videoId: Int, attendeeId: String)
}
