import CarillonCodecs

/// Reads one picture of a screen per call: the seam between ``ScreenPictures`` and a platform's screen capture
/// (``X11ScreenGrabber`` today; a PipeWire stream later).
///
/// Threading: made and used on the capture loop only.
protocol ScreenGrabber: AnyObject {
    /// The screen's width in pixels.
    var width: Int { get }
    /// The screen's height in pixels.
    var height: Int { get }
    /// The screen now, as I420. Throws ``CaptureSourceError/invalidFrame`` for one failed read (capture goes on).
    func grab() throws(CaptureSourceError) -> I420Image
}
