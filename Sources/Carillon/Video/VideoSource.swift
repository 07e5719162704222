/// Produces video frames and hands each to every sink added to it: a camera, a file, a generated pattern, or a
/// processor (a class that is both a source and a ``VideoSink``).
///
/// Give a source to `startLocalVideo(source:)` to send it; the session adds its own sink and reads
/// ``videoContentHint`` once, at that moment. Sinks are kept strongly until removed, as in the Chime SDK.
public protocol VideoSource: AnyObject {
    /// What the frames show, for the encoder.
    var videoContentHint: VideoContentHint { get set }
    /// Adds a sink; it receives every frame from now on. Adding a sink twice adds it once.
    func addVideoSink(sink: any VideoSink)
    /// Removes a sink; frames already on their way may still reach it.
    func removeVideoSink(sink: any VideoSink)
}
