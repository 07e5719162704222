/// One answer of `VIDIOC_ENUM_FRAMESIZES`: one size, or a range of sizes.
///
/// A plain value, safe to share.
enum V4L2FrameSize: Hashable, Sendable {
    /// Exactly this size.
    case discrete(width: Int, height: Int)
    /// Any size from the minimum to the maximum in steps (a step of 1 is a continuous range).
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)

    /// The sizes to offer: a discrete size itself; of a range, the common camera sizes (16:9 from 160x90 to 1920x1080
    /// and 4:3 from 160x120 to 1280x960) that lie in it and on its steps.
    var sizes: [(width: Int, height: Int)] {
        switch self {
        case .discrete(let width, let height):
            return [(width, height)]
        case .stepwise(let minWidth, let maxWidth, let stepWidth, let minHeight, let maxHeight, let stepHeight):
            func fits(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Bool {
                (low...max(low, high)).contains(value) && (step <= 1 || (value - low) % step == 0)
            }
            return Self.commonSizes.filter {
                fits($0.width, minWidth, maxWidth, stepWidth) && fits($0.height, minHeight, maxHeight, stepHeight)
            }
        }
    }

    /// The sizes a range is offered at.
    static let commonSizes: [(width: Int, height: Int)] = [
        (160, 90), (160, 120), (320, 180), (320, 240), (480, 270), (640, 360), (640, 480), (960, 540), (800, 600),
        (1280, 720), (1280, 960), (1920, 1080),
    ]
}
