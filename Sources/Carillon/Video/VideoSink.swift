/// Receives video frames: a renderer, a recorder, the session's sender, or the input of a processor.
///
/// Threading: a source calls its sinks on its own thread (Carillon's capture sources: their capture event loop; a
/// video tile: the session's callback queue). Return quickly; copy or hop elsewhere for slow work.
public protocol VideoSink: AnyObject {
    /// One frame. The frame is immutable and may be kept.
    func onVideoFrameReceived(frame: VideoFrame)
}
