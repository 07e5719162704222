import CarillonCodecs

/// Makes the pictures of one capture, one call per frame: what a ``CaptureLoop`` paces. A camera opened for a format
/// (``CameraDeviceProvider/openCamera(_:format:)``) or a standalone source's generator.
///
/// Threading: made and used on the capture loop only.
protocol PictureProducer: AnyObject {
    /// The picture of frame `index` (0 for the first frame of a source, counting across restarts). Throws
    /// ``CaptureSourceError/invalidFrame`` when this one frame cannot be made; capture goes on.
    func picture(index: Int) throws(CaptureSourceError) -> I420Image
    /// The picture of frame `index`, or nil when there is none this tick (a real camera whose next picture has not
    /// arrived yet): nothing is sent. Throws ``CaptureSourceError/invalidFrame`` when this one frame cannot be made
    /// (capture goes on), any other error when capture cannot go on (the capture stops). Defaults to
    /// ``picture(index:)``.
    func nextPicture(index: Int) throws(CaptureSourceError) -> I420Image?
    /// Lets go of what the producer holds (a device); called when its capture stops or is replaced, before another is
    /// opened. Defaults to nothing.
    func close()
}

extension PictureProducer {
    /// ``picture(index:)``: generators always have a picture.
    func nextPicture(index: Int) throws(CaptureSourceError) -> I420Image? { try picture(index: index) }
    /// Nothing to let go of.
    func close() {}
}

/// What a capture runs with: its pictures and how many a second.
struct CaptureSetup {
    /// Makes the pictures.
    let producer: any PictureProducer
    /// Frames a second, at least 1.
    let framesPerSecond: Int
}
