/// The meeting's resolution caps, from `Meeting.MeetingFeatures`.
public final class MeetingFeatures: Sendable {
    /// Video cap (HD by default).
    public let videoMaxResolution: VideoResolution
    /// Content-share cap (FHD by default).
    public let contentMaxResolution: VideoResolution

    /// HD video, FHD content.
    public convenience init() {
        self.init(videoMaxResolution: .videoResolutionHD, contentMaxResolution: .videoResolutionFHD)
    }

    /// From the API's strings: `none`, `hd`, `fhd`, anything else UHD (case-insensitive); nil means the default.
    public convenience init(video: String?, content: String?) {
        func resolution(_ value: String?, default fallback: String) -> VideoResolution {
            switch (value ?? fallback).lowercased() {
            case "none": .videoDisabled
            case "hd": .videoResolutionHD
            case "fhd": .videoResolutionFHD
            default: .videoResolutionUHD
            }
        }
        self.init(videoMaxResolution: resolution(video, default: "hd"), contentMaxResolution: resolution(content, default: "fhd"))
    }

    /// Explicit caps.
    public init(videoMaxResolution: VideoResolution, contentMaxResolution: VideoResolution) {
        self.videoMaxResolution = videoMaxResolution
        self.contentMaxResolution = contentMaxResolution
    }
}
