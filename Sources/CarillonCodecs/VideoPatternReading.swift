/// What a decoded picture of a ``VideoTestPattern`` says: its frame counter and its sender's colour.
///
/// The counter is read from the centre half of each code cell (mean luma; above 160 is a one, below 96 a zero,
/// anything between makes the reading fail) and is nil unless all 24 cells are clear and the CRC matches, so a
/// reading is either right or absent. The colour is the mean Y, U and V over the middle of the colour area, for
/// comparing with a palette (``nearestColor(in:tolerance:)``) or with an expected value.
///
/// Works at any picture size, since the layout is in fractions of the picture (see ``VideoTestPattern``). Cost: reads
/// part of the top fifth of the picture: 8 µs at 320x180, 25 µs at 640x360, 0.1 ms at 1280x720 (CPU time of a
/// 500-call loop, release build). A value type.
public struct VideoPatternReading: Sendable, Hashable {
    /// The frame counter (0-65535), or nil when a code cell is unclear or the CRC does not match (not a pattern, or
    /// too damaged).
    public var counter: Int?
    /// Mean luma of the colour area.
    public var meanY: Double
    /// Mean U (Cb) of the colour area.
    public var meanU: Double
    /// Mean V (Cr) of the colour area.
    public var meanV: Double

    /// Reads `image`. Pictures smaller than the 20x10 grid read as no counter and a mean over what there is.
    public init(_ image: I420Image) {
        typealias Pattern = VideoTestPattern
        let width = image.width, height = image.height
        var counter: Int?
        var mean = (y: 0.0, u: 0.0, v: 0.0)
        image.withUnsafePlanes { planeY, planeU, planeV in
            if width >= Pattern.columns, height >= Pattern.rows {
                var bits = 0
                var clear = true
                for index in 0..<Pattern.codeBitCount {
                    let row = index / Pattern.codeColumns, column = index % Pattern.codeColumns
                    let (xs, ys) = Self.centre(column: column, row: row, width: width, height: height)
                    let level = Self.mean(planeY, stride: image.strideY, xs: xs, ys: ys)
                    if level > 160 {
                        bits = bits << 1 | 1
                    } else if level < 96 {
                        bits <<= 1
                    } else {
                        clear = false
                        break
                    }
                }
                let value = UInt16(truncatingIfNeeded: bits >> 8)
                if clear, Pattern.codeBits(value) == bits { counter = Int(value) }
            }
            // The colour area spans columns 12-19 of the top two rows; read its middle, away from the code cells,
            // the texture below and the picture's edge, where coding and chroma subsampling blur it.
            let left = Pattern.cellLeft(Pattern.codeColumns, width) + max(1, width / 80)
            let right = max(left + 1, width - max(1, width / 80))
            let top = Pattern.cellTop(0, height) + max(1, height / 40)
            let bottom = max(top + 1, Pattern.cellTop(Pattern.codeRows, height) - max(1, height / 40))
            let xs = min(left, width - 1)..<min(right, width), ys = min(top, height - 1)..<min(bottom, height)
            mean.y = Self.mean(planeY, stride: image.strideY, xs: xs, ys: ys)
            let cxs = (xs.lowerBound + 1) / 2..<max((xs.lowerBound + 1) / 2 + 1, xs.upperBound / 2)
            let cys = (ys.lowerBound + 1) / 2..<max((ys.lowerBound + 1) / 2 + 1, ys.upperBound / 2)
            let chromaX = cxs.clamped(to: 0..<image.chromaWidth), chromaY = cys.clamped(to: 0..<image.chromaHeight)
            mean.u = Self.mean(planeU, stride: image.strideUV, xs: chromaX, ys: chromaY)
            mean.v = Self.mean(planeV, stride: image.strideUV, xs: chromaX, ys: chromaY)
        }
        self.counter = counter
        meanY = mean.y
        meanU = mean.u
        meanV = mean.v
    }

    /// The colour of `palette` nearest to the measured one (distance in U/V, plus half the luma difference), or nil
    /// when even the nearest is further than `tolerance`.
    public func nearestColor(
        in palette: [VideoTestPattern.Color] = VideoTestPattern.Color.palette, tolerance: Double = 24
    ) -> VideoTestPattern.Color? {
        let scored = palette.map { ($0, distance(to: $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= tolerance else { return nil }
        return best.0
    }

    /// How far the measured colour is from `color`: Euclidean in U/V plus half the luma difference.
    public func distance(to color: VideoTestPattern.Color) -> Double {
        let (y, u, v) = color.yuv
        let du = meanU - Double(u), dv = meanV - Double(v)
        return (du * du + dv * dv).squareRoot() + abs(meanY - Double(y)) / 2
    }

    /// The middle half of a grid cell, in pixels.
    private static func centre(column: Int, row: Int, width: Int, height: Int) -> (Range<Int>, Range<Int>) {
        let left = VideoTestPattern.cellLeft(column, width), right = VideoTestPattern.cellLeft(column + 1, width)
        let top = VideoTestPattern.cellTop(row, height), bottom = VideoTestPattern.cellTop(row + 1, height)
        let insetX = (right - left) / 4, insetY = (bottom - top) / 4
        return ((left + insetX)..<max(left + insetX + 1, right - insetX), (top + insetY)..<max(top + insetY + 1, bottom - insetY))
    }

    private static func mean(_ plane: UnsafeBufferPointer<UInt8>, stride: Int, xs: Range<Int>, ys: Range<Int>) -> Double {
        guard !xs.isEmpty, !ys.isEmpty else { return 0 }
        var total = 0
        for y in ys {
            for x in xs { total += Int(plane[y * stride + x]) }
        }
        return Double(total) / Double(xs.count * ys.count)
    }
}
