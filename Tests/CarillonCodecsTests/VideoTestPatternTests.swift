import CarillonCodecs
import Testing

/// The synthetic camera and its reader without a codec in between: counters and colours read back at any size, a
/// damaged code reads as nothing rather than as a wrong number, and pictures that are not the pattern read as
/// nothing.
@Suite struct VideoTestPatternTests {
    @Test(arguments: [(320, 180), (640, 360), (1280, 720), (160, 90), (333, 187), (40, 20)])
    func countersAndColoursReadBack(width: Int, height: Int) throws {
        for (frame, color) in zip([0, 1, 255, 12_345, 65_535, 70_000], VideoTestPattern.Color.palette) {
            let pattern = try VideoTestPattern(width: width, height: height, color: color)
            let image = pattern.image(frame: frame)
            #expect(image.width == width && image.height == height)
            let reading = VideoPatternReading(image)
            #expect(reading.counter == frame % 65_536, "\(width)x\(height) frame \(frame)")
            #expect(reading.nearestColor() == color, "\(width)x\(height) \(color)")
            let (y, u, v) = color.yuv
            #expect(abs(reading.meanY - Double(y)) < 1 && abs(reading.meanU - Double(u)) < 1 && abs(reading.meanV - Double(v)) < 1)
        }
    }

    @Test func paletteColoursAreFarApart() {
        let palette = VideoTestPattern.Color.palette
        #expect(Set(palette).count == 8)
        for (index, a) in palette.enumerated() {
            for b in palette[(index + 1)...] {
                let (ay, au, av) = a.yuv, (by, bu, bv) = b.yuv
                let distance = (Double(au) - Double(bu)) * (Double(au) - Double(bu)) + (Double(av) - Double(bv)) * (Double(av) - Double(bv))
                #expect(distance.squareRoot() + abs(Double(ay) - Double(by)) / 2 > 30, "\(a) and \(b) are too close")
            }
        }
        // libyuv's BT.601 studio-range formula, checked against the usual published values.
        #expect(VideoTestPattern.Color(red: 255, green: 255, blue: 255).yuv == (235, 128, 128))
        #expect(VideoTestPattern.Color(red: 0, green: 0, blue: 0).yuv == (16, 128, 128))
        #expect(VideoTestPattern.Color(red: 255, green: 0, blue: 0).yuv == (82, 90, 240))
    }

    @Test func framesDifferAndTheTextureMoves() throws {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .red)
        let first = pattern.image(frame: 10), again = pattern.image(frame: 10), next = pattern.image(frame: 11)
        #expect(first == again)
        // Below the code band, most pixels change from one frame to the next.
        let textureStart = 36 * 320
        let changed = zip(first.storage[textureStart..<first.yRange.upperBound], next.storage[textureStart..<next.yRange.upperBound])
            .filter { abs(Int($0) - Int($1)) > 4 }.count
        #expect(changed > (first.yRange.upperBound - textureStart) / 2, "\(changed) luma samples changed")
    }

    @Test func damagedOrForeignPicturesReadAsNoCounter() throws {
        let pattern = try VideoTestPattern(width: 320, height: 180, color: .green)
        // Invert one code cell (row 1, column 5: pixels 80-95 x 18-35): the CRC no longer matches.
        var flipped = pattern.image(frame: 999)
        flipped.withUnsafeMutablePlanes { y, _, _ in
            for row in 18..<36 { for column in 80..<96 { y[row * 320 + column] = y[row * 320 + column] > 128 ? 16 : 235 } }
        }
        #expect(VideoPatternReading(flipped).counter == nil)
        // A grey cell is unclear.
        var grey = pattern.image(frame: 999)
        grey.withUnsafeMutablePlanes { y, _, _ in
            for row in 0..<18 { for column in 0..<16 { y[row * 320 + column] = 128 } }
        }
        #expect(VideoPatternReading(grey).counter == nil)
        // Flat pictures are not codes: all black, all white (the CRC's initial value rules both out), mid grey.
        for level: UInt8 in [16, 235, 128] {
            let flat = try I420Image(width: 320, height: 180, y: level, u: 128, v: 128)
            let reading = VideoPatternReading(flat)
            #expect(reading.counter == nil, "flat \(level)")
            #expect(reading.nearestColor() == nil, "flat \(level)")
        }
        #expect(VideoPatternReading(try I420Image(width: 8, height: 4)).counter == nil)
        // The smallest pattern still carries its counter.
        #expect(VideoPatternReading(try VideoTestPattern(width: 20, height: 10, color: .red).image(frame: 77)).counter == 77)
        #expect(throws: I420ImageError.invalidSize(width: 19, height: 10)) { try VideoTestPattern(width: 19, height: 10, color: .red) }
    }
}
