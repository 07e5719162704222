/// An attendee's connection quality as the realtime callbacks report it.
public enum SignalStrength: Int, CustomStringConvertible, Sendable, CaseIterable {
    /// No audio arriving.
    case none = 0
    /// Lossy.
    case low = 1
    /// Good.
    case high = 2

    /// The case name.
    public var description: String {
        switch self {
        case .none: "none"
        case .low: "low"
        case .high: "high"
        }
    }
}
