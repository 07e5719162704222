/// How far a frame's picture must be turned clockwise to appear upright, with the Chime SDK's raw values (degrees).
///
/// Carillon's own sources (the virtual cameras, the pattern and Y4M sources) always produce ``rotation0``. The
/// session does not negotiate the RTP orientation extension, and it sends pictures as they are: a frame with
/// another rotation is sent unrotated (with one log line). A plain value, safe to share.
public enum VideoRotation: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Upright.
    case rotation0 = 0
    /// Turn 90 degrees clockwise.
    case rotation90 = 90
    /// Turn 180 degrees.
    case rotation180 = 180
    /// Turn 270 degrees clockwise.
    case rotation270 = 270

    /// `rotation_0`, `rotation_90`, `rotation_180` or `rotation_270`, as in the Chime SDK.
    public var description: String { "rotation_\(rawValue)" }
}
