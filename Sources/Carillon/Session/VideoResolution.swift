/// A video resolution; apps use the presets (the initialiser is internal, as in the Chime SDK). Equal when the sizes
/// are (Chime compares them that way internally; apps compare presets with `==`).
public final class VideoResolution: Sendable, Equatable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// 960x720.
    public static let high = VideoResolution(width: 960, height: 720)
    /// 640x480.
    public static let medium = VideoResolution(width: 640, height: 480)
    /// 320x240.
    public static let low = VideoResolution(width: 320, height: 240)
    /// Video off.
    public static let videoDisabled = VideoResolution(width: 0, height: 0)
    /// 1280x720.
    public static let videoResolutionHD = VideoResolution(width: 1280, height: 720)
    /// 1920x1080.
    public static let videoResolutionFHD = VideoResolution(width: 1920, height: 1080)
    /// 3840x2160.
    public static let videoResolutionUHD = VideoResolution(width: 3840, height: 2160)

    /// `{ width: W, height: H }`.
    public var description: String { "{ width: \(width), height: \(height) }" }

    func sameSize(as other: VideoResolution) -> Bool { width == other.width && height == other.height }

    /// Same width and height.
    public static func == (lhs: VideoResolution, rhs: VideoResolution) -> Bool { lhs.sameSize(as: rhs) }
}
