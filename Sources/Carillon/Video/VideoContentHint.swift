/// What a video source shows, so the encoder can favour motion or detail, with the Chime SDK's raw values.
///
/// The hint is read once, when the source is given to `startLocalVideo(source:)`: ``text`` and ``detail`` make the
/// session encode for screen content (sharper, fewer frames), the others for camera video. Defaults: cameras
/// ``motion``. A plain value, safe to share.
public enum VideoContentHint: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// No hint: encoded as camera video.
    case none = 0
    /// Camera-like content where smooth motion matters more than sharpness.
    case motion = 1
    /// Content with fine detail (for example a shared screen with images): encoded as screen content.
    case detail = 2
    /// Text (documents, slides): encoded as screen content.
    case text = 3

    /// The case name.
    public var description: String {
        switch self {
        case .none: "none"
        case .motion: "motion"
        case .detail: "detail"
        case .text: "text"
        }
    }

    /// Whether the encoder should treat the content as a screen (``detail`` and ``text``).
    var isScreenContent: Bool { self == .detail || self == .text }
}
