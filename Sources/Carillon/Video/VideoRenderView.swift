/// A sink that shows a video tile: what `bindVideoView(videoView:tileId:)` takes.
///
/// On iOS the SDK's render view is a UIKit view (`DefaultVideoRenderView`), which does not exist on Linux. Here a
/// render view is any ``VideoSink`` that declares this conformance (for example `extension MyRecorder:
/// VideoRenderView {}`): it receives the tile's frames on the session's callback queue.
public protocol VideoRenderView: VideoSink {}
