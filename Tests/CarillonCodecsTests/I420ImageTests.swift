import CarillonCodecs
import Testing

/// The I420 buffer: layout, validation, copy-on-write, scaling, and conversions from capture layouts checked against
/// hand-computed BT.601 studio-range values.
@Suite struct I420ImageTests {
    // BT.601 studio range, libyuv's integer formula, worked by hand:
    // red (255, 0, 0): Y = (66*255 + 4224) >> 8 = 82, U = (-38*255 + 32896) >> 8 = 90, V = (112*255 + 32896) >> 8 = 240
    // green (0, 255, 0): Y = (129*255 + 4224) >> 8 = 144, U = (-74*255 + 32896) >> 8 = 54, V = (-94*255 + 32896) >> 8 = 34
    // blue (0, 0, 255): Y = (25*255 + 4224) >> 8 = 41, U = (112*255 + 32896) >> 8 = 240, V = (-18*255 + 32896) >> 8 = 110
    // white (255, 255, 255): Y = (220*255 + 4224) >> 8 = 235, U = V = 32896 >> 8 = 128
    static let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [0, 0, 255], white: [UInt8] = [255, 255, 255]
    /// A 4x4 picture of four flat 2x2 blocks: red, green over blue, white.
    static let blocks: [[[UInt8]]] = [[red, red, green, green], [red, red, green, green], [blue, blue, white, white], [blue, blue, white, white]]
    static let expectedY: [UInt8] = [82, 82, 144, 144, 82, 82, 144, 144, 41, 41, 235, 235, 41, 41, 235, 235]
    static let expectedU: [UInt8] = [90, 54, 240, 128]
    static let expectedV: [UInt8] = [240, 34, 110, 128]

    /// `blocks` as 32-bit pixels in the memory order `layout` names, each row followed by `padding` junk bytes.
    static func packed(_ layout: I420Image.PackedRGBLayout, padding: Int = 0) -> [UInt8] {
        blocks.flatMap { row in
            row.flatMap { pixel -> [UInt8] in
                let (r, g, b, a) = (pixel[0], pixel[1], pixel[2], UInt8(0xFF))
                switch layout {
                case .bgra: return [b, g, r, a]
                case .rgba: return [r, g, b, a]
                case .argb: return [a, r, g, b]
                case .abgr: return [a, b, g, r]
                }
            } + Array(repeating: 0x5A, count: padding)
        }
    }

    static func expectClose(_ actual: some Collection<UInt8>, _ expected: [UInt8], tolerance: Int, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let close = actual.count == expected.count && zip(actual, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
        #expect(close, "\(what): \(Array(actual)) expected \(expected) ±\(tolerance)", sourceLocation: sourceLocation)
    }

    @Test func layoutOfOddSizes() throws {
        let image = try I420Image(width: 5, height: 3)
        #expect(image.chromaWidth == 3 && image.chromaHeight == 2)
        #expect(image.strideY == 5 && image.strideUV == 3)
        #expect(image.yRange == 0..<15 && image.uRange == 15..<21 && image.vRange == 21..<27)
        #expect(image.storage.count == 27 && image.storage.allSatisfy { $0 == 0 })

        let padded = try I420Image(width: 5, height: 3, strideY: 8, strideUV: 4)
        #expect(padded.yRange == 0..<24 && padded.uRange == 24..<32 && padded.vRange == 32..<40)
        // Equality looks at visible pixels only.
        #expect(padded == image)
        var black = try I420Image(width: 5, height: 3, y: 16, u: 128, v: 128)
        #expect(black != image)
        #expect(black.pixel(x: 4, y: 2) == (16, 128, 128))
        black.withUnsafeMutablePlanes { y, u, v in
            y[14] = 200
            u[5] = 1
            v[5] = 2
        }
        #expect(black.pixel(x: 4, y: 2) == (200, 1, 2))
        #expect(black.pixel(x: 3, y: 2) == (16, 128, 128))
    }

    @Test func validation() throws {
        #expect(throws: I420ImageError.invalidSize(width: 0, height: 10)) { try I420Image(width: 0, height: 10) }
        #expect(throws: I420ImageError.invalidSize(width: 10, height: 16_385)) { try I420Image(width: 10, height: 16_385) }
        #expect(throws: I420ImageError.invalidStride(plane: "Y", stride: 9, minimum: 10)) { try I420Image(width: 10, height: 2, strideY: 9) }
        #expect(throws: I420ImageError.invalidStride(plane: "UV", stride: 4, minimum: 5)) { try I420Image(width: 10, height: 2, strideUV: 4) }
        #expect(throws: I420ImageError.bufferTooSmall(plane: "I420 storage", count: 29, needed: 30)) {
            try I420Image(width: 10, height: 2, storage: [UInt8](repeating: 0, count: 29))
        }
        #expect(throws: I420ImageError.bufferTooSmall(plane: "U", count: 4, needed: 5)) {
            try I420Image(width: 10, height: 2, y: .init(repeating: 0, count: 20), strideY: 10, u: [0, 0, 0, 0], strideU: 5, v: .init(repeating: 0, count: 5), strideV: 5)
        }
        let bytes = [UInt8](repeating: 0, count: 7)
        #expect(throws: I420ImageError.bufferTooSmall(plane: "YUYV", count: 7, needed: 8)) {
            try bytes.withUnsafeBytes { try I420Image(yuyv: $0, width: 4, height: 1) }
        }
        #expect(throws: I420ImageError.invalidStride(plane: "YUYV", stride: 6, minimum: 8)) {
            try bytes.withUnsafeBytes { try I420Image(yuyv: $0, width: 3, height: 1, stride: 6) }
        }
        #expect(throws: I420ImageError.bufferTooSmall(plane: "packed RGB", count: 7, needed: 8)) {
            try bytes.withUnsafeBytes { try I420Image(packedRGB: $0, layout: .bgra, width: 2, height: 1) }
        }
        #expect(throws: I420ImageError.bufferTooSmall(plane: "NV12 UV", count: 3, needed: 4)) {
            try bytes.withUnsafeBytes { try I420Image(nv12: $0, width: 4, height: 1) }
        }
    }

    @Test func planesWithStridesAreCopiedAndCopiesAreIndependent() throws {
        // 3x3 with padded source rows: Y rows of 4 bytes, chroma rows of 3.
        let y: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99, 7, 8, 9]
        let u: [UInt8] = [10, 11, 99, 12, 13]
        let v: [UInt8] = [20, 21, 99, 22, 23]
        let image = try I420Image(width: 3, height: 3, y: y, strideY: 4, u: u, strideU: 3, v: v, strideV: 3)
        #expect(image.storage == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 20, 21, 22, 23])
        var copy = image
        copy.fill(y: 0, u: 0, v: 0)
        #expect(image.storage[0] == 1 && copy.storage[0] == 0)
    }

    @Test(arguments: I420Image.PackedRGBLayout.allCases)
    func packedRGBConvertsToHandComputedValues(layout: I420Image.PackedRGBLayout) throws {
        for padding in [0, 12] {
            let bytes = Self.packed(layout, padding: padding)
            let image = try bytes.withUnsafeBytes { try I420Image(packedRGB: $0, layout: layout, width: 4, height: 4, stride: 16 + padding) }
            // libyuv's SIMD paths use 7-bit coefficients for some rows: a step of rounding either way.
            Self.expectClose(image.storage[image.yRange], Self.expectedY, tolerance: 1, "\(layout) Y")
            Self.expectClose(image.storage[image.uRange], Self.expectedU, tolerance: 1, "\(layout) U")
            Self.expectClose(image.storage[image.vRange], Self.expectedV, tolerance: 1, "\(layout) V")
        }
        // The same memory read with the wrong order gives other colours: the names are not interchangeable.
        if layout != .bgra {
            let image = try Self.packed(.bgra).withUnsafeBytes { try I420Image(packedRGB: $0, layout: layout, width: 4, height: 4) }
            #expect(Array(image.storage[image.yRange]) != Self.expectedY)
        }
    }

    @Test func nv12ConvertsExactly() throws {
        // NV12 of the four blocks: the luma plane, then U, V pairs; rows padded to 6 bytes.
        let luma: [UInt8] = Self.expectedY.chunked(4).flatMap { row -> [UInt8] in row + [0xEE, 0xEE] }
        let chroma: [UInt8] = [90, 240, 54, 34, 0xEE, 0xEE, 240, 110, 128, 128, 0xEE, 0xEE]
        let image = try (luma + chroma).withUnsafeBytes { try I420Image(nv12: $0, width: 4, height: 4, stride: 6) }
        #expect(Array(image.storage[image.yRange]) == Self.expectedY)
        #expect(Array(image.storage[image.uRange]) == Self.expectedU)
        #expect(Array(image.storage[image.vRange]) == Self.expectedV)
        // Two separate planes with their own strides give the same picture.
        let split = try luma.withUnsafeBytes { y in
            try chroma.withUnsafeBytes { uv in try I420Image(nv12: y, lumaStride: 6, chroma: uv, chromaStride: 6, width: 4, height: 4) }
        }
        #expect(split == image)
        // Odd size: 3x1 has two chroma pairs in its single chroma row, so the shared stride defaults to 4.
        let odd = try ([1, 2, 3, 0xEE] + [50, 60, 70, 80] as [UInt8]).withUnsafeBytes { try I420Image(nv12: $0, width: 3, height: 1) }
        #expect(odd.storage == [1, 2, 3, 50, 70, 60, 80])
    }

    @Test func yuyvConvertsExactly() throws {
        // YUYV of the four blocks: Y0 U Y1 V per pixel pair, the same chroma on both rows of a block.
        var bytes: [UInt8] = []
        for row in 0..<4 {
            let y = Array(Self.expectedY[(row * 4)..<(row * 4 + 4)])
            let block = row / 2 * 2
            bytes += [y[0], Self.expectedU[block], y[1], Self.expectedV[block], y[2], Self.expectedU[block + 1], y[3], Self.expectedV[block + 1]]
        }
        let image = try bytes.withUnsafeBytes { try I420Image(yuyv: $0, width: 4, height: 4) }
        #expect(Array(image.storage[image.yRange]) == Self.expectedY)
        #expect(Array(image.storage[image.uRange]) == Self.expectedU)
        #expect(Array(image.storage[image.vRange]) == Self.expectedV)
        // Chroma of two rows is averaged, rounding up; a padded stride is honoured.
        let pair: [UInt8] = [10, 100, 20, 200, 0, 0, 30, 111, 40, 201, 0, 0]
        let averaged = try pair.withUnsafeBytes { try I420Image(yuyv: $0, width: 2, height: 2, stride: 6) }
        #expect(averaged.storage == [10, 20, 30, 40, 106, 201])
    }

    @Test func scalingSizesAndFlatColours() throws {
        let flat = try I420Image(width: 33, height: 17, y: 81, u: 90, v: 240)
        for (width, height) in [(16, 8), (17, 9), (1, 1), (100, 51)] {
            for filter in [I420Image.ScalingFilter.box, .bilinear, .linear, .nearest] {
                let scaled = try flat.scaled(width: width, height: height, filter: filter)
                #expect(scaled.width == width && scaled.height == height && scaled.chromaWidth == (width + 1) / 2)
                // libyuv's box filter divides by a fixed-point reciprocal, so a flat level may come out one lower.
                Self.expectClose(scaled.storage[scaled.yRange], Array(repeating: 81, count: width * height), tolerance: 1, "\(width)x\(height) \(filter) Y")
                let chroma = scaled.chromaWidth * scaled.chromaHeight
                Self.expectClose(scaled.storage[scaled.uRange], Array(repeating: 90, count: chroma), tolerance: 1, "\(width)x\(height) \(filter) U")
                Self.expectClose(scaled.storage[scaled.vRange], Array(repeating: 240, count: chroma), tolerance: 1, "\(width)x\(height) \(filter) V")
            }
        }
        #expect(try flat.scaled(width: 33, height: 17) == flat)
        #expect(throws: I420ImageError.invalidSize(width: 0, height: 10)) { try flat.scaled(width: 0, height: 10) }
        // Box filtering a 2x2 checker of 0 and 200 down to one pixel averages it.
        let checker = try I420Image(width: 2, height: 2, storage: [0, 200, 200, 0, 128, 128])
        #expect(try checker.scaled(width: 1, height: 1, filter: .box).storage == [100, 128, 128])
    }

    @Test func scalingKeepsThePatternReadable() throws {
        let pattern = try VideoTestPattern(width: 640, height: 360, color: .purple)
        let source = pattern.image(frame: 4321)
        for (width, height) in [(320, 180), (160, 90), (427, 240), (1280, 720)] {
            for filter in [I420Image.ScalingFilter.box, .bilinear, .nearest] {
                let scaled = try source.scaled(width: width, height: height, filter: filter)
                #expect(scaled.width == width && scaled.height == height)
                let reading = VideoPatternReading(scaled)
                #expect(reading.counter == 4321, "\(width)x\(height) \(filter)")
                #expect(reading.nearestColor() == .purple, "\(width)x\(height) \(filter)")
            }
        }

        // Downscaled, then through VP8 at the small size's bitrate: still every counter.
        let encoder = try VP8Encoder(configuration: .init(width: 320, height: 180, bitrate: 300_000, maxFrameRate: 15))
        let decoder = try VP8Decoder()
        for frame in 0..<30 {
            let small = try pattern.image(frame: frame).scaled(width: 320, height: 180)
            guard let encoded = try encoder.encode(small, timestamp: UInt32(frame * 6000)) else { continue }
            let reading = VideoPatternReading(try #require(try decoder.decode(encoded.bytes)))
            #expect(reading.counter == frame)
            #expect(reading.nearestColor() == .purple)
        }
    }
}

extension Array {
    /// The array cut into pieces of `size` elements (the last may be shorter).
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
