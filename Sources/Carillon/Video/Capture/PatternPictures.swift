import CarillonCodecs

/// The pictures of a synthetic camera: ``CarillonCodecs/VideoTestPattern`` frames of one colour, the frame counter
/// showing the frame index (modulo 65536).
///
/// Cost: about 0.4 ms a frame at 320x180, 5.4 ms at 1280x720 (release build). Confined to the capture loop.
final class PatternPictures: PictureProducer {
    private let pattern: VideoTestPattern

    /// Pictures of `width` x `height`; sizes below 20x10 (one pixel a pattern cell) or above
    /// ``CarillonCodecs/I420Image/maximumDimension`` are a ``CaptureSourceError/configurationFailure``.
    init(color: VideoTestPattern.Color, width: Int, height: Int) throws(CaptureSourceError) {
        do { pattern = try VideoTestPattern(width: width, height: height, color: color) } catch {
            throw .configurationFailure
        }
    }

    func picture(index: Int) -> I420Image { pattern.image(frame: index) }
}
