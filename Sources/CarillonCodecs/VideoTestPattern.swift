#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A synthetic camera: pictures that stay machine-readable after lossy coding and scaling, for bots, tests and
/// benchmarks (the video twin of ``ToneGenerator``). ``VideoPatternReading`` reads them back.
///
/// The picture is a grid of 20 x 10 cells (each 1/20 of the width by 1/10 of the height: 16x18 pixels at 320x180):
/// - the top two rows, columns 0-11, hold 24 black or white cells: the 16-bit frame counter, most significant bit
///   first, then a CRC-8 of it (polynomial 0x07, initial value 0xFF), so a misread cell is caught instead of giving a wrong number;
/// - the top two rows, columns 12-19, are a flat area of the sender's ``color``;
/// - the lower eight rows are moving texture (two sets of stripes crossing and drifting in different directions, over
///   drifting colour), so the encoder has real work to do every frame, as with a camera.
///
/// Everything is laid out in fractions of the picture, so the pattern reads the same at any size and after scaling
/// (uncoded: the counter from 20x10 up, the colour from 40x20; through VP8 at camera bitrates: from 160x90 up).
/// Colours use BT.601 studio range.
///
/// Cost: 0.36 ms a frame at 320x180, 1.35 ms at 640x360, 5.4 ms at 1280x720 (CPU time of a 150-frame loop, release
/// build). A value type with no shared state; share it freely.
public struct VideoTestPattern: Sendable, Hashable {
    /// An RGB colour identifying a sender, with its BT.601 studio-range YUV value.
    public struct Color: Sendable, Hashable, CustomStringConvertible {
        /// Red, 0-255.
        public var red: UInt8
        /// Green, 0-255.
        public var green: UInt8
        /// Blue, 0-255.
        public var blue: UInt8
        /// A short name for logs and test messages.
        public var name: String

        /// Creates a colour.
        public init(red: UInt8, green: UInt8, blue: UInt8, name: String = "") {
            self.red = red
            self.green = green
            self.blue = blue
            self.name = name
        }

        /// Saturated colours far apart in U/V, so a sender's colour survives coding and reads back unambiguously.
        public static let red = Color(red: 220, green: 40, blue: 40, name: "red")
        /// See ``red``.
        public static let green = Color(red: 40, green: 200, blue: 60, name: "green")
        /// See ``red``.
        public static let blue = Color(red: 40, green: 80, blue: 220, name: "blue")
        /// See ``red``.
        public static let yellow = Color(red: 230, green: 210, blue: 40, name: "yellow")
        /// See ``red``.
        public static let magenta = Color(red: 210, green: 50, blue: 200, name: "magenta")
        /// See ``red``.
        public static let cyan = Color(red: 40, green: 200, blue: 210, name: "cyan")
        /// See ``red``.
        public static let orange = Color(red: 240, green: 140, blue: 30, name: "orange")
        /// See ``red``.
        public static let purple = Color(red: 120, green: 60, blue: 180, name: "purple")
        /// The eight colours above, for giving each sender of a meeting its own.
        public static let palette: [Color] = [red, green, blue, yellow, magenta, cyan, orange, purple]

        /// The colour in BT.601 studio range (Y 16-235, U/V 16-240), with the integer formula libyuv uses for its
        /// RGB to I420 conversions.
        public var yuv: (y: UInt8, u: UInt8, v: UInt8) {
            let r = Int(red), g = Int(green), b = Int(blue)
            return (UInt8((66 * r + 129 * g + 25 * b + 0x1080) >> 8),
                    UInt8((112 * b - 74 * g - 38 * r + 0x8080) >> 8),
                    UInt8((112 * r - 94 * g - 18 * b + 0x8080) >> 8))
        }

        public var description: String { name.isEmpty ? "rgb(\(red), \(green), \(blue))" : name }
    }

    /// Width of the pictures in pixels.
    public let width: Int
    /// Height of the pictures in pixels.
    public let height: Int
    /// The sender's colour, painted in the top-right area.
    public var color: Color

    /// Creates a pattern. Sizes below 20x10 (one pixel a cell) are refused.
    public init(width: Int, height: Int, color: Color) throws(I420ImageError) {
        guard width >= Self.columns, height >= Self.rows else { throw .invalidSize(width: width, height: height) }
        _ = try I420Image.layout(width: width, height: height, strideY: nil, strideUV: nil)
        self.width = width
        self.height = height
        self.color = color
    }

    /// The picture for frame number `frame`: the counter shows `frame` modulo 65536 and the texture is at its
    /// position for that frame.
    public func image(frame: Int) -> I420Image {
        // The size was checked at init, so the layout cannot fail.
        var image = try! I420Image(uninitializedWidth: width, height: height)
        let counter = UInt16(truncatingIfNeeded: frame)
        let bits = Self.codeBits(counter)
        let (y, u, v) = color.yuv
        let textureTop = Self.cellTop(Self.codeRows, height)
        let width = self.width, height = self.height
        let chromaWidth = image.chromaWidth, chromaHeight = image.chromaHeight
        let phase = frame & 0xFFFF
        image.withUnsafeMutablePlanes { planeY, planeU, planeV in
            // Top band: code cells and the colour area. Luma per cell, chroma neutral over the code and the
            // sender's colour over the colour area.
            for row in 0..<Self.codeRows {
                for column in 0..<Self.columns {
                    var value = y
                    if column < Self.codeColumns {
                        let bit = Self.codeBitCount - 1 - (row * Self.codeColumns + column)
                        value = (bits >> bit) & 1 == 1 ? Self.white : Self.black
                    }
                    for py in Self.cellTop(row, height)..<Self.cellTop(row + 1, height) {
                        let start = py * width
                        planeY[(start + Self.cellLeft(column, width))..<(start + Self.cellLeft(column + 1, width))].update(repeating: value)
                    }
                }
            }
            let colourLeft = Self.cellLeft(Self.codeColumns, width)
            for cy in 0..<((textureTop + 1) / 2) {
                for cx in 0..<chromaWidth {
                    let inColour = 2 * cx + 1 >= colourLeft
                    planeU[cy * chromaWidth + cx] = inColour ? u : 128
                    planeV[cy * chromaWidth + cx] = inColour ? v : 128
                }
            }
            // Texture: two stripe fields crossing and drifting in different directions. Divisions are per column
            // and per row, not per pixel.
            let columnA = (0..<width).map { $0 * 6 * 256 / width }
            let columnB = (0..<width).map { $0 * 15 * 256 / width }
            let chromaColumn = (0..<chromaWidth).map { $0 * 2 * 256 / chromaWidth }
            Self.sine.withUnsafeBufferPointer { sine in
                for py in textureTop..<height {
                    let rowA = py * 3 * 256 / height - phase * 7
                    let rowB = -py * 9 * 256 / height + phase * 11
                    let start = py * width
                    for px in 0..<width {
                        let a = sine[(columnA[px] + rowA) & 255]
                        let b = sine[(columnB[px] + rowB) & 255]
                        planeY[start + px] = UInt8(truncatingIfNeeded: min(235, max(16, 128 + (a * 3 + b * 2) / 5)))
                    }
                }
                for cy in ((textureTop + 1) / 2)..<chromaHeight {
                    let v = UInt8(128 + sine[(cy * 2 * 256 / chromaHeight - phase * 5) & 255] * 50 / 127)
                    let start = cy * chromaWidth
                    for cx in 0..<chromaWidth {
                        planeU[start + cx] = UInt8(128 + sine[(chromaColumn[cx] + phase * 3) & 255] * 50 / 127)
                        planeV[start + cx] = v
                    }
                }
            }
        }
        return image
    }

    // MARK: Layout shared with VideoPatternReading

    static let columns = 20
    static let rows = 10
    static let codeRows = 2
    static let codeColumns = 12
    static let counterBits = 16
    static let codeBitCount = codeRows * codeColumns
    static let black: UInt8 = 16
    static let white: UInt8 = 235

    /// Left edge in pixels of grid column `column` (0...20) in a picture `width` wide.
    static func cellLeft(_ column: Int, _ width: Int) -> Int { column * width / columns }
    /// Top edge in pixels of grid row `row` (0...10) in a picture `height` high.
    static func cellTop(_ row: Int, _ height: Int) -> Int { row * height / rows }

    /// The 24 code bits: the counter then its CRC-8.
    static func codeBits(_ counter: UInt16) -> Int {
        Int(counter) << 8 | Int(crc8(counter))
    }

    /// CRC-8 with polynomial x^8 + x^2 + x + 1 (0x07) and initial value 0xFF (so neither an all-black nor an
    /// all-white band is a valid code) over the counter's two bytes, high first.
    static func crc8(_ counter: UInt16) -> UInt8 {
        var crc: UInt8 = 0xFF
        for byte in [UInt8(counter >> 8), UInt8(counter & 0xFF)] {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    /// 127 * sin(2 pi i / 256).
    private static let sine: [Int] = (0..<256).map { Int((127 * sin(2 * Double.pi * Double($0) / 256)).rounded()) }
}
