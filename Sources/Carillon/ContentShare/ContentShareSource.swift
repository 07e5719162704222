/// What a content share sends: a video source (a ``Y4MFileVideoSource``, a ``SlidesVideoSource`` or
/// any app source). Chime's shape: a settable property and an empty initialiser.
///
/// A plain holder; the controller reads ``videoSource`` once, when the share starts.
public final class ContentShareSource {
    /// The video to share; nil makes ``ContentShareController/startContentShare(source:)`` do nothing.
    public var videoSource: (any VideoSource)?

    /// Creates an empty source.
    public init() {}

    /// Creates a source sharing `videoSource` (a Carillon convenience).
    public convenience init(videoSource: any VideoSource) {
        self.init()
        self.videoSource = videoSource
    }
}
