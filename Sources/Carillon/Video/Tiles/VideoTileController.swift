/// The tile controller as the session sees it: a ``VideoTileControllerFacade`` fed with the frames of every video.
public protocol VideoTileController: VideoTileControllerFacade {
    /// One frame (or none) of video `videoId`: from `attendeeId`, or the local video when `attendeeId` is nil, in
    /// `pauseState`. A nil frame with ``VideoPauseState/unpaused`` ends the video. Call it on the session's callback
    /// queue (the session does); from elsewhere it is carried there.
    func onReceiveFrame(frame: VideoFrame?, videoId: Int, attendeeId: String?, pauseState: VideoPauseState)
}
