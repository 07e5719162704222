/// The formats of one V4L2 camera as capture offers them: for every size any convertible pixel format has, the highest
/// frame rate, and which pixel format gives it. Built from the device's enumerations (``read(from:)``); a pure value
/// otherwise.
///
/// A plain value, safe to share.
struct V4L2FormatCatalog: Hashable, Sendable {
    /// One size of one pixel format, at its highest frame rate.
    struct Entry: Hashable, Sendable {
        /// The pixel format.
        let pixelFormat: V4L2PixelFormat
        /// Width in pixels.
        let width: Int
        /// Height in pixels.
        let height: Int
        /// The highest frame rate at this size.
        let maxFrameRate: Int
    }

    /// The frame rate assumed when a driver does not enumerate intervals.
    static let assumedFrameRate = 30

    /// Every size of every convertible pixel format.
    let entries: [Entry]

    /// A catalog of `entries` (formats that cannot be converted are left out).
    init(entries: [Entry]) {
        self.entries = entries.filter { $0.pixelFormat.isConvertible && $0.width > 0 && $0.height > 0 && $0.maxFrameRate > 0 }
    }

    /// Enumerates `device`: its convertible pixel formats, their sizes (ranges offered at the common sizes, see
    /// ``V4L2FrameSize/sizes``) and each size's highest frame rate. An enumeration that fails ends that part of the
    /// listing. Cost: one ioctl per format, size and interval.
    static func read(from device: any V4L2Device) -> V4L2FormatCatalog {
        let formats = (try? device.pixelFormats()) ?? []
        var entries: [Entry] = []
        for format in formats where format.isConvertible {
            for size in ((try? device.frameSizes(of: format)) ?? []).flatMap(\.sizes) {
                let rate = device.maximumFrameRate(of: format, width: size.width, height: size.height) ?? assumedFrameRate
                entries.append(Entry(pixelFormat: format, width: size.width, height: size.height, maxFrameRate: rate))
            }
        }
        return V4L2FormatCatalog(entries: entries)
    }

    /// The capture formats: one per size, at the highest rate any pixel format has there, smallest first.
    var captureFormats: [VideoCaptureFormat] {
        var best: [Size: Int] = [:]
        for entry in entries { best[Size(entry), default: 0] = max(best[Size(entry), default: 0], entry.maxFrameRate) }
        return best.map { VideoCaptureFormat(width: $0.key.width, height: $0.key.height, maxFrameRate: $0.value) }
            .sorted { ($0.width * $0.height, $0.width) < ($1.width * $1.height, $1.width) }
    }

    /// The pixel format to capture `format` in: of those with its size, the one reaching the highest rate up to the
    /// wanted one, ties going to the cheapest conversion (NV12, then YUYV, then MJPEG). Nil when no pixel format has
    /// the size.
    func pixelFormat(for format: VideoCaptureFormat) -> V4L2PixelFormat? {
        let candidates = entries.filter { $0.width == format.width && $0.height == format.height }
        func rank(_ entry: Entry) -> (Int, Int) {
            (min(entry.maxFrameRate, format.maxFrameRate),
             -(V4L2PixelFormat.convertible.firstIndex(of: entry.pixelFormat) ?? V4L2PixelFormat.convertible.count))
        }
        return candidates.max { rank($0) < rank($1) }?.pixelFormat
    }

    private struct Size: Hashable {
        let width: Int
        let height: Int
        init(_ entry: Entry) {
            width = entry.width
            height = entry.height
        }
    }
}
