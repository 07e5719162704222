/// The stream header of a YUV4MPEG2 (`.y4m`) file: picture size, frame rate and the optional tags.
///
/// Y4M is raw video with a one-line text header (`YUV4MPEG2 W640 H360 F15:1 Ip A1:1 C420jpeg`) and a `FRAME` line
/// before each picture; ffmpeg, mjpegtools and Chromium's fake capture read and write it. Only 8-bit 4:2:0 streams
/// are read and written here, whose pictures are I420 as they are: Y, then U, then V, chroma (w+1)/2 by (h+1)/2.
/// A value type.
public struct Y4MHeader: Sendable, Hashable {
    /// A ratio such as a frame rate (30000:1001) or a pixel aspect ratio (1:1).
    public struct Ratio: Sendable, Hashable, CustomStringConvertible {
        /// The numerator.
        public var numerator: Int
        /// The denominator.
        public var denominator: Int

        /// Creates a ratio.
        public init(_ numerator: Int, _ denominator: Int) {
            self.numerator = numerator
            self.denominator = denominator
        }

        public var description: String { "\(numerator):\(denominator)" }
    }

    /// Picture width (`W`), in pixels.
    public var width: Int
    /// Picture height (`H`), in pixels.
    public var height: Int
    /// Frames per second as a ratio (`F`); a header without one reads as 30:1.
    public var frameRate: Ratio
    /// The interlacing tag (`I`): "p" progressive, "t" top field first, "b" bottom first, "m" mixed; nil if absent.
    public var interlacing: String?
    /// The pixel aspect ratio (`A`), nil if absent (0:0 means unknown).
    public var pixelAspectRatio: Ratio?
    /// The colour space tag (`C`) without its letter: "420", "420jpeg", "420paligned" or "420mpeg2"; nil when
    /// absent (which means 4:2:0 with JPEG siting).
    public var colorSpace: String?
    /// Extension tags (`X...`), kept as they are, without the letter.
    public var extensions: [String]

    /// Creates a header. The defaults write `Ip A1:1 C420`: Chromium's `--use-file-for-fake-video-capture` reads
    /// `C420` (not `C420mpeg2`).
    public init(
        width: Int, height: Int, frameRate: Ratio = Ratio(30, 1), interlacing: String? = "p",
        pixelAspectRatio: Ratio? = Ratio(1, 1), colorSpace: String? = "420", extensions: [String] = []
    ) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.interlacing = interlacing
        self.pixelAspectRatio = pixelAspectRatio
        self.colorSpace = colorSpace
        self.extensions = extensions
    }

    /// The colour spaces read and written: 8-bit 4:2:0 with any chroma siting.
    public static let supportedColorSpaces: Set<String> = ["420", "420jpeg", "420paligned", "420mpeg2"]

    /// Bytes of one picture: `width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)`.
    public var frameByteCount: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    /// The header line, with its final newline.
    public var line: String {
        var tags = ["YUV4MPEG2", "W\(width)", "H\(height)", "F\(frameRate)"]
        if let interlacing { tags.append("I\(interlacing)") }
        if let pixelAspectRatio { tags.append("A\(pixelAspectRatio)") }
        if let colorSpace { tags.append("C\(colorSpace)") }
        tags += extensions.map { "X\($0)" }
        return tags.joined(separator: " ") + "\n"
    }

    /// Parses a header line (without its newline).
    init(parsing line: ArraySlice<UInt8>) throws(Y4MError) {
        guard let text = String(validating: line, as: UTF8.self) else { throw .invalidHeader("not text") }
        var tokens = text.split(separator: " ", omittingEmptySubsequences: true)
        guard tokens.first == "YUV4MPEG2" else { throw .notY4M }
        tokens.removeFirst()
        var width: Int?, height: Int?
        self.init(width: 0, height: 0, frameRate: Ratio(30, 1), interlacing: nil, pixelAspectRatio: nil, colorSpace: nil)
        for token in tokens {
            let value = String(token.dropFirst())
            switch token.first {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "F": frameRate = try Self.ratio(value, tag: "F")
            case "I": interlacing = value
            case "A": pixelAspectRatio = try Self.ratio(value, tag: "A")
            case "C": colorSpace = value
            case "X": extensions.append(value)
            default: break  // Unknown tags are skipped, as the format asks of readers.
            }
        }
        guard let width, let height, (1...I420Image.maximumDimension).contains(width),
              (1...I420Image.maximumDimension).contains(height)
        else { throw .invalidHeader("width and height must be 1-\(I420Image.maximumDimension)") }
        guard frameRate.numerator > 0, frameRate.denominator > 0 else { throw .invalidHeader("frame rate \(frameRate)") }
        if let colorSpace, !Self.supportedColorSpaces.contains(colorSpace) { throw .unsupportedColorSpace(colorSpace) }
        self.width = width
        self.height = height
    }

    private static func ratio(_ text: String, tag: Character) throws(Y4MError) -> Ratio {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]), numerator >= 0, denominator >= 0
        else { throw .invalidHeader("\(tag)\(text) is not a ratio") }
        return Ratio(numerator, denominator)
    }
}
