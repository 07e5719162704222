import CarillonCodecs
import CarillonRTC

/// The pictures of generated slides: high-detail still images that change every few seconds, the same for the same
/// seed. Each slide is a ``CarillonCodecs/VideoTestPattern`` picture whose top two rows carry the slide number as the
/// counter and the sender's colour (so `VideoPatternReading` reads slide and sender back after coding), over a
/// white page of dark "text" (seeded runs of glyph-sized blocks, one or two pixels apart, in lines) and one coloured
/// box: the sharp edges and flat areas of a screen, for the encoder's screen-content mode.
///
/// Cost: a slide is drawn once when it comes up (about 1 ms at 1280x720, debug build ~10 ms); the frames in
/// between return the same picture without a copy. Confined to the capture loop.
final class SlidePictures: PictureProducer {
    private let pattern: VideoTestPattern
    private let seed: UInt64
    private let framesPerSlide: Int
    private var current: (slide: Int, image: I420Image)?

    /// Slides of `width` x `height` that change every `framesPerSlide` frames; sizes below 40x20 or above
    /// ``CarillonCodecs/I420Image/maximumDimension`` and `framesPerSlide` below 1 are a
    /// ``CaptureSourceError/configurationFailure``.
    init(color: VideoTestPattern.Color, width: Int, height: Int, framesPerSlide: Int, seed: UInt64)
        throws(CaptureSourceError) {
        guard width >= 40, height >= 20, framesPerSlide >= 1 else { throw .configurationFailure }
        do { pattern = try VideoTestPattern(width: width, height: height, color: color) } catch {
            throw .configurationFailure
        }
        self.seed = seed
        self.framesPerSlide = framesPerSlide
    }

    func picture(index: Int) -> I420Image {
        let slide = index / framesPerSlide
        if let current, current.slide == slide { return current.image }
        let image = Self.draw(slide: slide, pattern: pattern, seed: seed)
        current = (slide, image)
        return image
    }

    /// Slide `slide`: the pattern's top rows (counter = slide number modulo 65536), then the page.
    static func draw(slide: Int, pattern: VideoTestPattern, seed: UInt64) -> I420Image {
        var image = pattern.image(frame: slide)
        var random = SeededRandom(seed: seed ^ (UInt64(truncatingIfNeeded: slide) &* 0x9E37_79B9_7F4A_7C15))
        let width = image.width, height = image.height
        let top = height * 2 / 10
        let box = VideoTestPattern.Color.palette[Int(random.next() % 8)].yuv
        let boxX = width / 2 + Int(random.next() % UInt64(max(1, width / 4)))
        let boxY = top + (height - top) / 4 + Int(random.next() % UInt64(max(1, (height - top) / 4)))
        let boxWidth = width / 5, boxHeight = (height - top) / 4
        let strideY = image.strideY, strideUV = image.strideUV
        // Text size follows the picture: about 45 lines on a 720-line page.
        let glyphHeight = max(2, height / 90)
        let lineHeight = glyphHeight * 2
        image.withUnsafeMutablePlanes { yPlane, uPlane, vPlane in
            for row in top..<height {
                for column in 0..<width { yPlane[row * strideY + column] = 235 }
            }
            for row in top / 2..<(height + 1) / 2 {
                for column in 0..<(width + 1) / 2 {
                    uPlane[row * strideUV + column] = 128
                    vPlane[row * strideUV + column] = 128
                }
            }
            var line = top + lineHeight / 2
            while line + glyphHeight < height {
                // A line of words: runs of glyphs, a space, up to a ragged right margin.
                var x = width / 20
                let end = width - width / 20 - Int(random.next() % UInt64(max(1, width / 4)))
                while x < end {
                    let glyphWidth = 1 + Int(random.next() % UInt64(max(1, glyphHeight)))
                    let ink = random.next() % 7 != 0
                    if ink {
                        for row in line..<line + glyphHeight {
                            for column in x..<min(x + glyphWidth, width) { yPlane[row * strideY + column] = 16 }
                        }
                    }
                    x += glyphWidth + 1 + (random.next() % 6 == 0 ? glyphHeight : 0)
                }
                line += lineHeight
            }
            for row in boxY..<min(boxY + boxHeight, height) {
                for column in boxX..<min(boxX + boxWidth, width) { yPlane[row * strideY + column] = box.y }
            }
            for row in boxY / 2..<min((boxY + boxHeight) / 2, (height + 1) / 2) {
                for column in boxX / 2..<min((boxX + boxWidth) / 2, (width + 1) / 2) {
                    uPlane[row * strideUV + column] = box.u
                    vPlane[row * strideUV + column] = box.v
                }
            }
        }
        return image
    }
}
