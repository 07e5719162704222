import CarillonCodecs

/// The pictures of a Y4M file, over and over: each call reads the next frame, going back to the first at the end
/// (and at a damaged frame after the first, logged once), scaled to the capture size when the file's differs.
///
/// Cost: one read of 1.5 bytes a pixel per frame, plus a scaling copy when sizes differ. Confined to the capture
/// loop (the reader is not thread-safe).
final class Y4MPictures: PictureProducer {
    private let reader: Y4MReader
    private let width: Int
    private let height: Int
    private let logger: any Logger
    private var reportedDamage = false

    /// Reads from `reader` (positioned anywhere: the next picture is its next frame), producing `width` x `height`.
    init(reader: Y4MReader, width: Int, height: Int, logger: any Logger) {
        self.reader = reader
        self.width = width
        self.height = height
        self.logger = logger
    }

    /// Opens `path` for pictures of `width` x `height`; a file that cannot be read, or has no frame, is a
    /// ``CaptureSourceError/configurationFailure`` (logged).
    convenience init(path: String, width: Int, height: Int, logger: any Logger) throws(CaptureSourceError) {
        let reader: Y4MReader
        do {
            reader = try Y4MReader(contentsOf: path)
            guard try reader.nextFrame() != nil else {
                logger.error(msg: "Y4M file \(path) has no frame")
                throw CaptureSourceError.configurationFailure
            }
            reader.rewind()
        } catch let error as CaptureSourceError {
            throw error
        } catch {
            logger.error(msg: "Cannot read Y4M file \(path): \(error)")
            throw .configurationFailure
        }
        self.init(reader: reader, width: width, height: height, logger: logger)
    }

    func picture(index: Int) throws(CaptureSourceError) -> I420Image {
        var next: I420Image?
        do {
            next = try reader.nextFrame()
        } catch {
            // A damaged frame after good ones ends the loop there; one at the start is a bad file.
            guard reader.framesRead > 0 else { throw .invalidFrame }
            if !reportedDamage {
                reportedDamage = true
                logger.error(msg: "Y4M frame \(reader.framesRead) is damaged (\(error)): looping from the first frame")
            }
        }
        if next == nil {
            reader.rewind()
            do { next = try reader.nextFrame() } catch { throw .invalidFrame }
        }
        guard let picture = next else { throw .invalidFrame }
        if picture.width == width && picture.height == height { return picture }
        do { return try picture.scaled(width: width, height: height) } catch { throw .invalidFrame }
    }

    /// The frame rate of a Y4M header in whole frames a second, 1-60.
    static func framesPerSecond(_ header: Y4MHeader) -> Int {
        let rate = Double(header.frameRate.numerator) / Double(max(1, header.frameRate.denominator))
        guard rate.isFinite else { return 30 }
        return min(60, max(1, Int(rate.rounded())))
    }
}
