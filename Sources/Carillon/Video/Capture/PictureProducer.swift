import CarillonCodecs

/// Makes the pictures of one capture, one call per frame: what a ``CaptureLoop`` paces. A camera opened for a format
/// (``CameraDeviceProvider/openCamera(_:format:)``) or a standalone source's generator.
///
/// Threading: made and used on the capture loop only.
protocol PictureProducer: AnyObject {
    /// The picture of frame `index` (0 for the first frame of a source, counting across restarts). Throws
    /// ``CaptureSourceError/invalidFrame`` when this one frame cannot be made; capture goes on.
    func picture(index: Int) throws(CaptureSourceError) -> I420Image
}

/// What a capture runs with: its pictures and how many a second.
struct CaptureSetup {
    /// Makes the pictures.
    let producer: any PictureProducer
    /// Frames a second, at least 1.
    let framesPerSecond: Int
}
