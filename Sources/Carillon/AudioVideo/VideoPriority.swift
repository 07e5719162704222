/// How much a remote video matters when bandwidth is short, with the Chime SDK's raw values (larger is more
/// important).
///
/// A plain value, safe to share.
public enum VideoPriority: Int, Sendable, CaseIterable {
    /// Dropped first.
    case lowest = 0
    /// See ``lowest``.
    case low = 10
    /// See ``lowest``.
    case medium = 20
    /// See ``lowest``.
    case high = 30
    /// Dropped last.
    case highest = 40
}
