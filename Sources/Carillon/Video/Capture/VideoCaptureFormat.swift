/// A capture size and the highest frame rate at that size.
///
/// The iOS SDK's `fromAVCaptureDeviceFormat(format:)` converts an AVFoundation format and does not exist here.
/// Equal and hashed by value (the iOS class compares values but hashes identities). Immutable, safe to share.
public final class VideoCaptureFormat: Hashable, Sendable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Frames per second, at most.
    public let maxFrameRate: Int

    /// Creates a format.
    public init(width: Int, height: Int, maxFrameRate: Int) {
        self.width = width
        self.height = height
        self.maxFrameRate = maxFrameRate
    }

    /// `<width>x<height> @ <maxFrameRate> fps`.
    public var description: String { "\(width)x\(height) @ \(maxFrameRate) fps" }

    /// Equality as documented on the type.
    public static func == (lhs: VideoCaptureFormat, rhs: VideoCaptureFormat) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.maxFrameRate == rhs.maxFrameRate
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(maxFrameRate)
    }

    /// The capture default of the Chime SDK: 1280x720 at 30 fps.
    static let defaultCamera = VideoCaptureFormat(width: 1280, height: 720, maxFrameRate: 30)
    /// The highest frame rate cameras are listed with (Chime's `maxSupportedVideoFrameRate`).
    static let maxSupportedFrameRate = 30

    /// Of `candidates`, the one closest to `self`: smallest |dw| + |dh|, ties broken by the smallest difference in
    /// frame rate (Chime's rule for picking a camera format).
    func closest(in candidates: [VideoCaptureFormat]) -> VideoCaptureFormat? {
        candidates.min { a, b in
            let da = abs(a.width - width) + abs(a.height - height), db = abs(b.width - width) + abs(b.height - height)
            if da != db { return da < db }
            return abs(a.maxFrameRate - maxFrameRate) < abs(b.maxFrameRate - maxFrameRate)
        }
    }
}
