import CarillonCodecs

/// The pictures of a screen: one grab per frame, scaled to at most ``maximumWidth`` x ``maximumHeight`` (keeping the
/// aspect ratio, even sizes) so a large desktop is sent at a size the encoder handles.
///
/// Cost: one grab (a shared-memory copy by the X server) and one BGRA to I420 conversion per frame, plus one scale
/// when the screen is larger than the maximum. Confined to the capture loop.
final class ScreenPictures: PictureProducer {
    /// The largest picture sent: 1920x1080 (Chime's FHD content).
    static let maximumWidth = 1920
    /// See ``maximumWidth``.
    static let maximumHeight = 1080
    private let grabber: any ScreenGrabber

    init(grabber: any ScreenGrabber) { self.grabber = grabber }

    /// The size pictures are sent at for a screen of `width` x `height`.
    static func sentSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > maximumWidth || height > maximumHeight else { return (width, height) }
        let scale = min(Double(maximumWidth) / Double(width), Double(maximumHeight) / Double(height))
        return (max(2, Int(Double(width) * scale) & ~1), max(2, Int(Double(height) * scale) & ~1))
    }

    func picture(index: Int) throws(CaptureSourceError) -> I420Image {
        let image = try grabber.grab()
        let size = Self.sentSize(width: image.width, height: image.height)
        guard size != (image.width, image.height) else { return image }
        do { return try image.scaled(width: size.width, height: size.height) } catch { throw .invalidFrame }
    }
}
